//! The `estoc` command: plays a level, checks data, prints sheets, runs scenarios.

fn main() -> std::process::ExitCode {
    estoc::cli::main()
}
