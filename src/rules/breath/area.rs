//! What a breath weapon covers: a cone or a line from the breather toward the creature it aims at, in the
//! three dimensions of the normal scale, or in the chase scale's squares and bands (004:676, 004:788-797).
//! Plain values in and out.

use crate::rules::core::altitude::{Reaching, Scale, band_allows, separation_m};
use crate::rules::core::creature::Body;
use crate::rules::core::geometry::{Diagonals, Footprint, Square};
use crate::rules::core::names::BreathShape;
use crate::rules::core::refusal::Refusal;

impl BreathShape {
    /// What the chase scale's band table calls it (004:788-797).
    pub fn reaching(self) -> Reaching {
        match self {
            BreathShape::Cone => Reaching::ConeBreath,
            BreathShape::Line => Reaching::LineBreath,
        }
    }
}

/// The space a breath fills: its shape and length.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Area {
    /// Cone or line.
    pub shape: BreathShape,
    /// Its length, in metres.
    pub length_m: f32,
}

/// Half the width of a line of breath, in metres.
const LINE_HALF_WIDTH_M: f32 = 0.75;

/// The cosine of the half-angle of a cone: a quarter circle, 45° to each side of its axis.
const CONE_HALF_ANGLE_COS: f32 = std::f32::consts::FRAC_1_SQRT_2;

/// The centre of a body in metres at normal scale: east, south, up.
fn centre(body: &Body) -> [f32; 3] {
    let f = body.footprint;
    let height = Scale::Normal.body_height(body.size) as f32 * 1.5;
    [
        (f.origin.x as f32 + f.width as f32 / 2.0) * 1.5,
        (f.origin.y as f32 + f.height as f32 / 2.0) * 1.5,
        body.altitude as f32 * 1.5 + height / 2.0,
    ]
}

fn minus(a: [f32; 3], b: [f32; 3]) -> [f32; 3] {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

fn dot(a: [f32; 3], b: [f32; 3]) -> f32 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

/// How far `other` is from `breather` for a breath: the distance of ranged attacks, heights counted at
/// normal scale (004:781-784), squares and bands between fliers at chase scale (004:652, 004:800-804).
///
/// At chase scale, between a band and the ground, the band table alone says whether a breath reaches (our
/// ruling): the bands' 30 m and more are not added, or no breath would ever reach the ground from band 2
/// or 3, which the table allows (004:793-794).
fn distance_m((scale, diagonals): (Scale, Diagonals), breather: &Body, other: &Body) -> f32 {
    let to_the_ground = scale == Scale::Chase && breather.altitude.min(other.altitude) <= 0;
    let (own, theirs) = if to_the_ground { (0, 0) } else { (breather.altitude, other.altitude) };
    separation_m(scale, diagonals, (breather.footprint, own), (other.footprint, theirs))
}

/// Whether a breath from `breather` aimed at `aim` covers `other`, at normal scale: within its length, and
/// within the cone's quarter circle or the line's 1.5 m width around the axis from the breather's centre
/// through the aim's.
fn covers(
    (shape, length_m, diagonals): (BreathShape, f32, Diagonals),
    breather: &Body,
    aim: &Body,
    other: &Body,
) -> bool {
    if distance_m((Scale::Normal, diagonals), breather, other) > length_m + 1e-3 {
        return false;
    }
    let from = centre(breather);
    let axis = minus(centre(aim), from);
    let to = minus(centre(other), from);
    let (axis_len, to_len) = (dot(axis, axis).sqrt(), dot(to, to).sqrt());
    if axis_len < 1e-3 || to_len < 1e-3 {
        // Right at the breather's centre: a rider on it, or the aim itself.
        return to_len < 1e-3 && axis_len < 1e-3;
    }
    let along = dot(axis, to) / axis_len;
    match shape {
        BreathShape::Cone => along / to_len >= CONE_HALF_ANGLE_COS - 1e-4,
        BreathShape::Line => {
            let across = (to_len * to_len - along * along).max(0.0).sqrt();
            let half_body = other.footprint.width.max(other.footprint.height) as f32 * 1.5 / 2.0;
            along >= 0.0 && across <= LINE_HALF_WIDTH_M + half_body + 1e-3
        }
    }
}

/// The creatures among `others` that a breath filling `area` from `breather` aimed at `others[aim]`
/// covers, by index, the aim first; or why it cannot be aimed there.
///
/// - It reaches no further than its length; at chase scale, from a band to the ground only as the band
///   table allows (004:788-797).
/// - `blind` is the breather's blind spot: a line cannot be aimed into it, nor cover anyone there, a cone
///   can and does (004:676).
/// - `open` says whether the breather has a line of effect to a body: walls stop a breath.
/// - At chase scale a cone covers everyone in the aim's square and band, a line the aim alone (our
///   ruling: a 1.5 m line through a 9 m square meets one creature).
pub fn covered(
    (scale, diagonals): (Scale, Diagonals),
    area: Area,
    breather: &Body,
    others: &[Body],
    aim: usize,
    blind: &[Square],
    open: impl Fn(Footprint) -> bool,
) -> Result<Vec<usize>, Refusal> {
    let Area { shape, length_m } = area;
    let target = &others[aim];
    band_allows(scale, breather.altitude, target.altitude, shape.reaching())?;
    let far = distance_m((scale, diagonals), breather, target);
    if far > length_m + 1e-3 {
        return Err(Refusal::new(
            format!("{far} m away, beyond the {length_m} m {} of its breath", shape.name()),
            "data",
        ));
    }
    let in_blind = |b: &Body| !blind.is_empty() && b.footprint.squares().all(|s| blind.contains(&s));
    if shape == BreathShape::Line && in_blind(target) {
        return Err(Refusal::new("behind it, in its blind spot: a line of breath does not reach there", "004:676"));
    }
    if !open(target.footprint) {
        return Err(Refusal::new("no line of effect", "004:406"));
    }
    let mut out = vec![aim];
    for (i, other) in others.iter().enumerate() {
        if i == aim || !open(other.footprint) {
            continue;
        }
        let covered = match scale {
            Scale::Chase => {
                shape == BreathShape::Cone
                    && other.footprint.origin == target.footprint.origin
                    && other.altitude == target.altitude
            }
            Scale::Normal => {
                covers((shape, length_m, diagonals), breather, target, other)
                    && !(shape == BreathShape::Line && in_blind(other))
            }
        };
        if covered {
            out.push(i);
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::core::size::Size;

    fn body(x: i32, y: i32, altitude: i32, size: Size) -> Body {
        Body::placed(Footprint::new(Square::new(x, y), size.side_squares().max(1)), altitude, size)
    }

    /// A creature at chase scale: one square whatever its size.
    fn chaser(x: i32, y: i32, band: i32, size: Size) -> Body {
        Body::placed(Footprint::new(Square::new(x, y), 1), band, size)
    }

    fn cone_of(length_m: f32) -> Area {
        Area { shape: BreathShape::Cone, length_m }
    }

    fn line_of(length_m: f32) -> Area {
        Area { shape: BreathShape::Line, length_m }
    }

    fn everywhere(_: Footprint) -> bool {
        true
    }

    #[test]
    fn a_cone_widens_and_a_line_stays_narrow() {
        // A Large dragon on the ground at (10, 10), breathing 12 m east at a creature 4 squares ahead.
        let dragon = body(10, 10, 0, Size::Large);
        let others = [
            body(16, 10, 0, Size::Medium), // the aim, 5 squares from its side
            body(17, 13, 0, Size::Medium), // ahead and off to the side: in the cone, not the line
            body(19, 10, 0, Size::Medium), // 8 squares ahead on the axis: 12 m, the breath's end
            body(20, 10, 0, Size::Medium), // 9 squares: beyond
            body(8, 10, 0, Size::Medium),  // behind
            body(16, 10, 0, Size::Medium), // stacked on the aim's square (a test of width only)
        ];
        let cone =
            covered((Scale::Normal, Diagonals::Alternating), cone_of(12.0), &dragon, &others, 0, &[], everywhere)
                .unwrap();
        assert_eq!(cone, vec![0, 1, 2, 5]);
        let line =
            covered((Scale::Normal, Diagonals::Alternating), line_of(12.0), &dragon, &others, 0, &[], everywhere)
                .unwrap();
        assert_eq!(line, vec![0, 2, 5]);
        let far = covered((Scale::Normal, Diagonals::Alternating), cone_of(12.0), &dragon, &others, 3, &[], everywhere);
        assert!(far.is_err());
    }

    #[test]
    fn heights_count_and_walls_stop_it() {
        // 10.5 m up, a creature on the ground 1 square off is 10.5 + 0.75 = 11.25 m away by 004:782's count:
        // reached; one 5 squares off is 10.5 + 3.75 = 14.25 m away.
        let dragon = body(10, 10, 7, Size::Large);
        let others = [body(12, 10, 0, Size::Medium), body(16, 10, 0, Size::Medium)];
        let cone =
            covered((Scale::Normal, Diagonals::Alternating), cone_of(12.0), &dragon, &others, 0, &[], everywhere)
                .unwrap();
        assert_eq!(cone, vec![0], "the one further off is out of reach at that height");
        let walled = |f: Footprint| f.origin.x < 14;
        assert!(
            covered((Scale::Normal, Diagonals::Alternating), cone_of(24.0), &dragon, &others, 1, &[], walled).is_err()
        );
        let cone =
            covered((Scale::Normal, Diagonals::Alternating), cone_of(24.0), &dragon, &others, 0, &[], walled).unwrap();
        assert_eq!(cone, vec![0]);
    }

    #[test]
    fn a_cone_reaches_the_blind_spot_a_line_does_not_004_676() {
        let dragon = body(10, 10, 4, Size::Large);
        let blind: Vec<Square> = Footprint::new(Square::new(8, 10), 2).squares().collect();
        let others = [body(8, 10, 4, Size::Medium), body(16, 10, 4, Size::Medium)];
        let cone =
            covered((Scale::Normal, Diagonals::Alternating), cone_of(12.0), &dragon, &others, 0, &blind, everywhere)
                .unwrap();
        assert_eq!(cone, vec![0]);
        let line =
            covered((Scale::Normal, Diagonals::Alternating), line_of(12.0), &dragon, &others, 0, &blind, everywhere);
        assert_eq!(line.unwrap_err().rule, "004:676");
    }

    #[test]
    fn at_chase_scale_the_bands_and_the_square_decide_004_790_797() {
        let dragon = chaser(4, 4, 3, Size::Large);
        let others = [
            chaser(5, 4, 0, Size::Medium), // on the ground, next square
            chaser(5, 4, 3, Size::Large),  // a griffon in the next square, band 3
            chaser(5, 4, 3, Size::Medium), // its rider
            chaser(5, 4, 2, Size::Large),  // another a band lower
        ];
        let cone = covered((Scale::Chase, Diagonals::Alternating), cone_of(12.0), &dragon, &others, 0, &[], everywhere);
        assert_eq!(cone.unwrap_err().rule, "004:788-797", "no cone to the ground from band 3");
        let line = covered((Scale::Chase, Diagonals::Alternating), line_of(12.0), &dragon, &others, 0, &[], everywhere)
            .unwrap();
        assert_eq!(line, vec![0]);
        let cone = covered((Scale::Chase, Diagonals::Alternating), cone_of(12.0), &dragon, &others, 1, &[], everywhere)
            .unwrap();
        assert_eq!(cone, vec![1, 2], "the griffon and its rider");
        let line = covered((Scale::Chase, Diagonals::Alternating), line_of(12.0), &dragon, &others, 1, &[], everywhere)
            .unwrap();
        assert_eq!(line, vec![1]);
        // Two squares off is 18 m: beyond 12 m.
        let far = [chaser(6, 4, 3, Size::Large)];
        assert!(
            covered((Scale::Chase, Diagonals::Alternating), cone_of(12.0), &dragon, &far, 0, &[], everywhere).is_err()
        );
    }
}
