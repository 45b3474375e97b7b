//! The combat log's lines: each fact of the rules in the player's words and language, with every die and
//! modifier and the text that rules it. The rules write facts; this is how the window reads them.

use crate::locale::tr;
use crate::rules::core::facts::Fact;
use crate::tr;

impl Fact {
    /// The line the combat log shows, with every die and modifier; `None` for facts too fine to show
    /// (each square entered).
    pub fn describe(&self) -> Option<String> {
        match self {
            Fact::SquareEntered { .. } => None,
            Fact::EncounterStarted { .. }
            | Fact::InitiativeRolled { .. }
            | Fact::InitiativeTieRolled { .. }
            | Fact::ChargeSquareRolled { .. }
            | Fact::TurnPassed { .. }
            | Fact::InitiativeOrdered { .. }
            | Fact::SurpriseRoundStarted { .. }
            | Fact::RoundStarted { .. }
            | Fact::TurnStarted { .. }
            | Fact::TurnDelayed { .. }
            | Fact::TurnResumed { .. }
            | Fact::DelayLapsed { .. }
            | Fact::TurnEnded { .. }
            | Fact::MoveStarted { .. }
            | Fact::CreatureMoved { .. }
            | Fact::OpportunityProvoked { .. }
            | Fact::MoveInterrupted { .. }
            | Fact::ActionInterrupted { .. }
            | Fact::ActionRefused { .. } => Some(self.turn_words()),
            Fact::AttackRolled { .. }
            | Fact::CoupDeGraceDelivered { .. }
            | Fact::ConcealmentRolled { .. }
            | Fact::CriticalConfirmationRolled { .. }
            | Fact::DamageDealt { .. }
            | Fact::NoDamage { .. }
            | Fact::SaveRolled { .. }
            | Fact::CheckRolled { .. }
            | Fact::Opposed { .. }
            | Fact::StabilisationRolled { .. }
            | Fact::HitPointsLost { .. }
            | Fact::HitPointsChanged { .. }
            | Fact::ConditionGained { .. }
            | Fact::SaddleKept { .. }
            | Fact::ConditionLost { .. } => Some(self.strike_words()),
            Fact::ActionReadied { .. }
            | Fact::ReadiedActionTriggered { .. }
            | Fact::FullRoundActionBegun { .. }
            | Fact::EffectBegun { .. }
            | Fact::FullAttackGivenUp { .. }
            | Fact::ItemUsed { .. }
            | Fact::Healed { .. }
            | Fact::CastingBegun { .. }
            | Fact::CastingContinues { .. }
            | Fact::SpellTakesEffect { .. }
            | Fact::SpellLost { .. }
            | Fact::ChargeHeld { .. }
            | Fact::Breathed { .. }
            | Fact::TookOff { .. }
            | Fact::Landed { .. }
            | Fact::FlybyResumed { .. }
            | Fact::Flew { .. }
            | Fact::Collided { .. }
            | Fact::CollisionShared { .. }
            | Fact::Mounted { .. }
            | Fact::ReinsTaken { .. }
            | Fact::Dismounted { .. }
            | Fact::Fell { .. }
            | Fact::FallingDamage { .. }
            | Fact::Rested { .. }
            | Fact::RecoveryRolled { .. }
            | Fact::RestHealed { .. }
            | Fact::FullRoundActionLost { .. }
            | Fact::ReadyLapsed { .. }
            | Fact::Parted { .. }
            | Fact::EncounterEnded { .. } => Some(self.more_words()),
            Fact::Displaced { .. }
            | Fact::AidGiven { .. }
            | Fact::Feinted { .. }
            | Fact::StrayRolled { .. }
            | Fact::TurningChecked { .. }
            | Fact::TurningDamage { .. }
            | Fact::UndeadTurned { .. }
            | Fact::Disarmed { .. }
            | Fact::WeaponStruck { .. }
            | Fact::WeaponDamaged { .. }
            | Fact::PickedUp { .. }
            | Fact::Grappled { .. }
            | Fact::GrappleEnded { .. }
            | Fact::IntersectionAimed { .. }
            | Fact::SplashScattered { .. }
            | Fact::OverrunMet { .. }
            | Fact::FireDoused { .. }
            | Fact::Pushed { .. } => Some(self.special_words()),
            Fact::Drew { .. }
            | Fact::LyingInWait { .. }
            | Fact::PutAway { .. }
            | Fact::Dropped { .. }
            | Fact::Loaded { .. }
            | Fact::Prepared { .. }
            | Fact::AbilityDamaged { .. }
            | Fact::AbilityRestored { .. }
            | Fact::ShieldReadied { .. }
            | Fact::ShieldLoosed { .. } => Some(self.gear_words()),
        }
    }

    /// The words of the facts of the gear in hand and of the ambush.
    fn gear_words(&self) -> String {
        match self {
            Fact::LyingInWait { creature, roll, total } => tr!(
                "log-lies-in-wait-hide-d20",
                creature = creature.to_string(),
                roll = roll.to_string(),
                value = total.to_string()
            ),
            Fact::Drew { creature, weapon, free: false } => {
                tr!("log-draws-its-004-121-004", creature = creature.to_string(), weapon = weapon.to_string())
            }
            Fact::Drew { creature, weapon, free: true } => {
                tr!("log-draws-its-as-it-moves", creature = creature.to_string(), weapon = weapon.to_string())
            }
            Fact::PutAway { creature, weapon } => {
                tr!("log-puts-away-its-004-129", creature = creature.to_string(), weapon = weapon.to_string())
            }
            Fact::Prepared { creature, weapon } => {
                tr!("log-prepares-its-flask", creature = creature.to_string(), weapon = weapon.to_string())
            }
            Fact::Loaded { creature, weapon, line } => tr!(
                "log-loads-its-004",
                creature = creature.to_string(),
                weapon = weapon.to_string(),
                line = line.to_string()
            ),
            Fact::AbilityDamaged { creature, ability, faces, amount, score, by } => tr!(
                "log-s-poison-takes-from-now",
                by = by.to_string(),
                amount = amount.to_string(),
                short = ability.short().to_string(),
                creature = creature.to_string(),
                faces = format!("{:?}", faces),
                score = score.to_string()
            ),
            Fact::AbilityRestored { creature, ability, amount } => {
                tr!(
                    "log-regains-with-rest",
                    creature = creature.to_string(),
                    amount = amount.to_string(),
                    short = ability.short().to_string()
                )
            }
            Fact::ShieldReadied { creature, shield, free: false } => {
                tr!("log-straps-on-its-004-127", creature = creature.to_string(), shield = shield.to_string())
            }
            Fact::ShieldReadied { creature, shield, free: true } => {
                tr!("log-straps-on-its-as-it", creature = creature.to_string(), shield = shield.to_string())
            }
            Fact::ShieldLoosed { creature, shield, at, free } => {
                let how = if *free { tr("log-as-it-moves-a-free") } else { String::new() };
                tr!(
                    "log-looses-its-it-falls-on",
                    creature = creature.to_string(),
                    shield = shield.to_string(),
                    how = how.to_string(),
                    at = at.to_string()
                )
            }
            Fact::Dropped { creature, weapon, at, thrown: false } => {
                tr!(
                    "log-drops-its-on-004-149",
                    creature = creature.to_string(),
                    weapon = weapon.to_string(),
                    at = at.to_string()
                )
            }
            Fact::Dropped { creature, weapon, at, thrown: true } => {
                tr!("log-s-lies-on", creature = creature.to_string(), weapon = weapon.to_string(), at = at.to_string())
            }
            _ => String::new(),
        }
    }

    /// The words of the facts of the special attacks and of creatures placed by the rules.
    #[expect(clippy::too_many_lines, reason = "one arm per kind of fact: the words the log gives each")]
    fn special_words(&self) -> String {
        use crate::rules::core::creature::AidKind;
        match self {
            Fact::AidGiven { aider, ally, foe, kind: AidKind::Attack } => {
                tr!(
                    "log-distracts-2-on-s-next",
                    aider = aider.to_string(),
                    foe = foe.to_string(),
                    ally = ally.to_string()
                )
            }
            Fact::AidGiven { aider, ally, foe, kind: AidKind::Defense } => {
                tr!(
                    "log-distracts-2-to-s-ac",
                    aider = aider.to_string(),
                    foe = foe.to_string(),
                    ally = ally.to_string()
                )
            }
            Fact::Feinted { feinter, target } => {
                tr!(
                    "log-feints-no-dex-bonus-against",
                    feinter = feinter.to_string(),
                    target = target.to_string(),
                    feinter2 = feinter.to_string()
                )
            }
            Fact::Displaced { creature, from, to, reason } => {
                tr!(
                    "log-cannot-stay-on-and-is",
                    creature = creature.to_string(),
                    from = from.to_string(),
                    to = to.to_string(),
                    reason = super::rules_words::reason(reason)
                )
            }
            Fact::StrayRolled { attacker, meant, other, chance, roll, strays } => tr!(
                "log-strikes-into-the-space-shares",
                attacker = attacker.to_string(),
                meant = meant.to_string(),
                other = other.to_string(),
                roll = roll.to_string(),
                chance = chance.to_string(),
                other2 = other.to_string(),
                meant2 = (if *strays { other } else { meant }).to_string()
            ),
            Fact::Pushed { creature, from, to, reason } if from == to => {
                tr!(
                    "log-stays-on",
                    creature = creature.to_string(),
                    from = from.to_string(),
                    reason = super::rules_words::reason(reason)
                )
            }
            Fact::Pushed { creature, from, to, reason } => tr!(
                "log-goes-from-to",
                creature = creature.to_string(),
                from = from.to_string(),
                to = to.to_string(),
                reason = super::rules_words::reason(reason)
            ),
            Fact::Disarmed { creature, by, weapon, taken: true, .. } => {
                tr!(
                    "log-wrests-the-from-s-hands",
                    by = by.to_string(),
                    weapon = weapon.to_string(),
                    creature = creature.to_string()
                )
            }
            Fact::Disarmed { creature, by, weapon, at, .. } => {
                tr!(
                    "log-disarms-the-falls-on",
                    by = by.to_string(),
                    creature = creature.to_string(),
                    weapon = weapon.to_string(),
                    at = at.to_string()
                )
            }
            Fact::WeaponStruck { attacker, creature, weapon, faces, damage, hardness, lost } => tr!(
                "log-strikes-s-damage-hardness-hit",
                attacker = attacker.to_string(),
                creature = creature.to_string(),
                weapon = weapon.to_string(),
                faces = format!("{:?}", faces),
                damage = damage.to_string(),
                hardness = hardness.to_string(),
                lost = lost.to_string()
            ),
            Fact::WeaponDamaged { creature, weapon, left, state: None } => {
                tr!(
                    "log-s-has-hit-points-left",
                    creature = creature.to_string(),
                    weapon = weapon.to_string(),
                    left = left.to_string()
                )
            }
            Fact::WeaponDamaged { creature, weapon, left, state: Some(state) } => {
                tr!(
                    "log-s-hit-points-left-is",
                    creature = creature.to_string(),
                    weapon = weapon.to_string(),
                    left = left.to_string(),
                    state = super::rules_words::reason(state)
                )
            }
            Fact::Grappled { creature, target, joined: true, at, .. } => {
                tr!(
                    "log-joins-the-grapple-on-on",
                    creature = creature.to_string(),
                    target = target.to_string(),
                    at = at.to_string()
                )
            }
            Fact::Grappled { creature, target, from, at, .. } => {
                tr!(
                    "log-grapples-from-into-its-space",
                    creature = creature.to_string(),
                    target = target.to_string(),
                    from = from.to_string(),
                    at = at.to_string()
                )
            }
            Fact::IntersectionAimed { creature, weapon, roll, total, hit, .. } => tr!(
                "log-throws-the-at-an-intersection",
                creature = creature.to_string(),
                weapon = weapon.to_string(),
                roll = roll.to_string(),
                value = total.to_string(),
                miss = (if *hit { tr("log-on-target") } else { tr("log-a-miss") }).to_string()
            ),
            Fact::SplashScattered { creature, weapon, d8, squares, at } => {
                tr!(
                    "log-s-scatters-d8-square-s",
                    creature = creature.to_string(),
                    weapon = weapon.to_string(),
                    d8 = d8.to_string(),
                    squares = squares.to_string(),
                    at = at.to_string()
                )
            }
            Fact::NoDamage { attacker, target, reason } => tr!(
                "log-deals-no-damage",
                attacker = attacker.to_string(),
                target = target.to_string(),
                reason = super::rules_words::reason(reason)
            ),
            Fact::FireDoused { creature } => {
                tr!("log-the-water-puts-out-the", creature = creature.to_string())
            }
            Fact::OverrunMet { creature, target, blocks: true } => {
                tr!("log-overruns-who-blocks", creature = creature.to_string(), target = target.to_string())
            }
            Fact::OverrunMet { creature, target, blocks: false } => {
                tr!("log-overruns-who-steps-aside-and", creature = creature.to_string(), target = target.to_string())
            }
            Fact::GrappleEnded { creature, with, reason } => {
                tr!(
                    "log-and-grapple-no-more",
                    creature = creature.to_string(),
                    with = with.to_string(),
                    reason = super::rules_words::reason(reason)
                )
            }
            Fact::PickedUp { creature, weapon, at } => tr!(
                "log-picks-up-the-from",
                creature = creature.to_string(),
                weapon = weapon.to_string(),
                at = at.to_string()
            ),

            Fact::TurningChecked { creature, roll, bonus, total, max_hit_dice } => tr!(
                "log-turns-undead-d20-up-to",
                creature = creature.to_string(),
                roll = roll.to_string(),
                bonus = format!("{:+}", bonus),
                value = total.to_string(),
                max_hit_dice = max_hit_dice.to_string()
            ),
            Fact::TurningDamage { creature, faces, bonus, total } => {
                tr!(
                    "log-s-turning-damage-2d6-hit",
                    creature = creature.to_string(),
                    faces = format!("{:?}", faces),
                    bonus = format!("{:+}", bonus),
                    value = total.to_string()
                )
            }
            Fact::UndeadTurned { creature, undead, outcome } => {
                use crate::rules::core::names::TurnOutcome;
                let what = match outcome {
                    TurnOutcome::Turned => tr("log-turned-it-flees-for-10"),
                    TurnOutcome::Destroyed => tr("log-destroyed"),
                    TurnOutcome::Rebuked => tr("log-rebuked-it-cowers-for-10"),
                    TurnOutcome::Commanded => tr("log-commanded"),
                    TurnOutcome::Freed => tr("log-freed-from-the-turning-it"),
                    TurnOutcome::Released => tr("log-released"),
                    TurnOutcome::Bolstered { hit_dice } => {
                        tr!("log-bolstered-hit-dice-against-turning", hit_dice = hit_dice.to_string())
                    }
                };
                tr!("log-undead-turned", creature = creature.to_string(), undead = undead.to_string(), what = what)
            }
            other => unreachable!("{other:?} is another group's"),
        }
    }

    /// The words of the facts of turns, movement and refusals.
    fn turn_words(&self) -> String {
        match self {
            Fact::EncounterStarted { level, seed } => {
                tr!("log-begins-seed", level = level.to_string(), seed = seed.to_string())
            }
            Fact::InitiativeTieRolled { creature, roll } => {
                tr!("log-initiative-tie", creature = creature.to_string(), roll = roll.to_string())
            }
            Fact::TurnPassed { round, creature } => {
                tr!("log-turn-passed", round = round.to_string(), creature = creature.to_string())
            }
            Fact::ChargeSquareRolled { creature, squares, roll, to } => tr!(
                "log-charge-square-rolled",
                creature = creature.to_string(),
                sides = squares.len().to_string(),
                roll = roll.to_string(),
                to = to.to_string()
            ),
            Fact::InitiativeRolled { creature, roll, modifiers, total } => {
                tr!(
                    "log-initiative-d20",
                    creature = creature.to_string(),
                    roll = roll.to_string(),
                    terms = super::rules_words::terms(modifiers),
                    value = total.to_string()
                )
            }
            Fact::InitiativeOrdered { order } => {
                tr!("log-order", list = order.iter().map(|c| c.0.as_str()).collect::<Vec<_>>().join(", "))
            }
            Fact::SurpriseRoundStarted { surprised } => tr!(
                "log-surprise-round-surprised",
                list = surprised.iter().map(|c| c.0.as_str()).collect::<Vec<_>>().join(", ")
            ),
            Fact::RoundStarted { round } => tr!("log-round", value = round.to_string()),
            Fact::TurnStarted { creature, .. } => tr!("log-s-turn", creature = creature.to_string()),
            Fact::TurnDelayed { creature } => tr!("log-delays", creature = creature.to_string()),
            Fact::TurnResumed { creature, .. } => tr!("log-resumes", creature = creature.to_string()),
            Fact::DelayLapsed { creature } => tr!("log-delayed-too-long-and-loses", creature = creature.to_string()),
            Fact::TurnEnded { creature } => tr!("log-ends-its-turn", creature = creature.to_string()),
            Fact::MoveStarted { creature, action, from, allowance } => {
                tr!(
                    "log-from-up-to-squares",
                    creature = creature.to_string(),
                    action = super::action_words(action),
                    from = from.to_string(),
                    allowance = allowance.to_string()
                )
            }
            Fact::CreatureMoved { creature, from, to, cost } => {
                tr!(
                    "log-moved-to-squares-m",
                    creature = creature.to_string(),
                    from = from.to_string(),
                    to = to.to_string(),
                    cost = cost.to_string(),
                    cost2 = (*cost as f32 * 1.5).to_string()
                )
            }
            Fact::OpportunityProvoked { creature, by, square, reason } => {
                tr!(
                    "log-provokes-at",
                    creature = creature.to_string(),
                    by = by.to_string(),
                    square = square.to_string(),
                    reason = super::rules_words::reason(reason)
                )
            }
            Fact::MoveInterrupted { creature, at, reason } => {
                tr!(
                    "log-stops-at",
                    creature = creature.to_string(),
                    at = at.to_string(),
                    reason = super::rules_words::reason(reason)
                )
            }
            Fact::ActionInterrupted { creature, action, reason } => {
                tr!(
                    "log-s-interrupted",
                    creature = creature.to_string(),
                    action = super::action_words(action),
                    reason = super::rules_words::reason(reason)
                )
            }
            Fact::ActionRefused { creature, action, reason, rule } => {
                tr!(
                    "log-cannot",
                    creature = creature.to_string(),
                    action = super::action_words(action),
                    reason = super::rules_words::refusal(reason),
                    rule = rule.to_string()
                )
            }
            other => unreachable!("{other:?} is another group's"),
        }
    }

    /// The words of the facts of attacks, checks, saves, hit points and conditions.
    #[expect(clippy::too_many_lines, reason = "one arm per kind of fact: the words the log gives each")]
    fn strike_words(&self) -> String {
        match self {
            Fact::AttackRolled {
                attacker,
                target,
                weapon,
                roll,
                modifiers,
                total,
                armor_class,
                armor_class_parts,
                hit,
                threat,
            } => tr!(
                "log-attacks-d20-vs-ac",
                attacker = attacker.to_string(),
                target = target.to_string(),
                weapon = weapon.to_string(),
                roll = roll.to_string(),
                terms = super::rules_words::terms(modifiers),
                value = total.to_string(),
                armor_class = armor_class.to_string(),
                terms2 = super::rules_words::terms(armor_class_parts),
                threat = (if *threat { tr("log-threat") } else { String::new() }).to_string(),
                miss = (if *hit { tr("log-hit") } else { tr("log-miss") }).to_string()
            ),
            Fact::CoupDeGraceDelivered { attacker, target, weapon } => {
                tr!(
                    "log-delivers-a-coup-de-gr",
                    attacker = attacker.to_string(),
                    target = target.to_string(),
                    weapon = weapon.to_string()
                )
            }
            Fact::ConcealmentRolled { target, chance, roll, missed, .. } => {
                tr!(
                    "log-concealment-of-d100",
                    target = target.to_string(),
                    chance = chance.to_string(),
                    roll = roll.to_string(),
                    through = (if *missed { tr("log-missed") } else { tr("log-through") }).to_string()
                )
            }
            Fact::CriticalConfirmationRolled { attacker, roll, total, confirmed } => tr!(
                "log-confirms-the-critical-d20",
                attacker = attacker.to_string(),
                roll = roll.to_string(),
                value = total.to_string(),
                confirmed = (if *confirmed { tr("log-confirmed") } else { tr("log-not-confirmed") }).to_string()
            ),
            Fact::DamageDealt { target, dice, modifiers, multiplier, multiplied_by, total, nonlethal, .. } => {
                let thrown: Vec<String> = dice.iter().map(|t| format!("{} {:?}", t.expr, t.faces)).collect();
                tr!(
                    "log-takes-damage",
                    target = target.to_string(),
                    value = total.to_string(),
                    nonlethal = (if *nonlethal { tr("log-nonlethal") } else { String::new() }).to_string(),
                    thrown = thrown.join(" + "),
                    terms = (if modifiers.is_empty() {
                        String::new()
                    } else {
                        format!(" ({})", super::rules_words::terms(modifiers))
                    })
                    .to_string(),
                    multiplier = (if *multiplier > 1 {
                        format!(
                            " ×{multiplier}{}",
                            if multiplied_by.is_empty() {
                                String::new()
                            } else {
                                let by: Vec<String> =
                                    multiplied_by.iter().map(|m| super::rules_words::term(m)).collect();
                                format!(" ({})", by.join(", "))
                            }
                        )
                    } else {
                        String::new()
                    })
                    .to_string()
                )
            }
            Fact::SaveRolled { creature, save, reason, roll, modifiers, total, dc, success } => tr!(
                "log-save-d20-vs-dc",
                creature = creature.to_string(),
                save = super::save_words(*save),
                reason = super::rules_words::reason(reason),
                roll = roll.to_string(),
                terms = (if modifiers.is_empty() {
                    String::new()
                } else {
                    format!(" ({})", super::rules_words::terms(modifiers))
                })
                .to_string(),
                value = total.to_string(),
                dc = dc.to_string(),
                failure = (if *success { tr("log-success") } else { tr("log-failure") }).to_string()
            ),
            Fact::CheckRolled { creature, check, reason, roll, total, dc, success } => tr!(
                "log-check-d20-vs-dc",
                creature = creature.to_string(),
                check = super::check_words(*check),
                reason = super::rules_words::reason(reason),
                roll = roll.to_string(),
                value = total.to_string(),
                dc = dc.to_string(),
                failure = (if *success { tr("log-success-2") } else { tr("log-failure-2") }).to_string()
            ),
            Fact::Opposed {
                creature,
                check,
                roll,
                total,
                terms,
                opponent,
                their_check,
                their_roll,
                their_total,
                their_terms,
                won,
                reason,
                ..
            } => {
                tr!(
                    "log-d20-against-d20",
                    creature = creature.to_string(),
                    check = super::check_words(*check),
                    roll = roll.to_string(),
                    terms = opposed_terms(terms),
                    value = total.to_string(),
                    opponent = opponent.to_string(),
                    their_check = super::check_words(*their_check),
                    their_roll = their_roll.to_string(),
                    their_terms = opposed_terms(their_terms),
                    their_total = their_total.to_string(),
                    reason = super::rules_words::reason(reason),
                    lost = (if *won { tr("log-won") } else { tr("log-lost") }).to_string()
                )
            }
            Fact::StabilisationRolled { creature, roll, stable } => {
                tr!(
                    "log-stabilisation-d100",
                    creature = creature.to_string(),
                    roll = roll.to_string(),
                    dying = (if *stable { tr("log-stable") } else { tr("log-still-dying") }).to_string()
                )
            }
            Fact::HitPointsLost { creature, amount, reason } => tr!(
                "log-loses-hp",
                creature = creature.to_string(),
                amount = amount.to_string(),
                reason = super::rules_words::reason(reason)
            ),
            Fact::HitPointsChanged { creature, before, after, nonlethal } => {
                if *nonlethal > 0 {
                    tr!(
                        "log-to-hp-nonlethal",
                        creature = creature.to_string(),
                        before = before.to_string(),
                        after = after.to_string(),
                        nonlethal = nonlethal.to_string()
                    )
                } else {
                    tr!(
                        "log-to-hp",
                        creature = creature.to_string(),
                        before = before.to_string(),
                        after = after.to_string()
                    )
                }
            }
            Fact::ConditionGained { creature, condition } => {
                tr!("log-is-now", creature = creature.to_string(), condition = super::condition_words(*condition))
            }
            Fact::SaddleKept { creature, mount, roll, percent, kept: true, .. } => {
                tr!(
                    "log-knocked-out-stays-on-s",
                    creature = creature.to_string(),
                    mount = mount.to_string(),
                    roll = roll.to_string(),
                    percent = percent.to_string()
                )
            }
            Fact::SaddleKept { creature, mount, roll, percent, to, .. } => tr!(
                "log-knocked-out-slides-off-d100",
                creature = creature.to_string(),
                mount = mount.to_string(),
                roll = roll.to_string(),
                percent = percent.to_string(),
                s = (to.map_or("?".into(), |s| s.to_string())).to_string()
            ),
            Fact::ConditionLost { creature, condition } => {
                tr!("log-is-no-longer", creature = creature.to_string(), condition = super::condition_words(*condition))
            }
            other => unreachable!("{other:?} is another group's"),
        }
    }

    /// The words of the facts of readied actions, effects, items, spells, breaths, flight, riders and rest.
    #[expect(clippy::too_many_lines, reason = "one arm for each fact of this group")]
    fn more_words(&self) -> String {
        match self {
            Fact::ActionReadied { creature, action, trigger } => {
                tr!(
                    "log-readies-when",
                    creature = creature.to_string(),
                    action = action.to_string(),
                    trigger = trigger.to_string()
                )
            }
            Fact::ReadiedActionTriggered { creature, by, action } => {
                tr!(
                    "log-sets-off-s-readied-action",
                    by = by.to_string(),
                    creature = creature.to_string(),
                    action = action.to_string()
                )
            }
            Fact::FullRoundActionBegun { creature, action } => {
                tr!(
                    "log-begins-a-to-finish-next",
                    creature = creature.to_string(),
                    action = super::action_words(action)
                )
            }
            Fact::EffectBegun { creature, condition, rounds, ends_round } => {
                tr!(
                    "log-is-for-rounds-until-this",
                    creature = creature.to_string(),
                    condition = super::condition_words(*condition),
                    rounds = rounds.to_string(),
                    ends_round = ends_round.to_string()
                )
            }
            Fact::FullAttackGivenUp { creature } => {
                tr!("log-gives-up-the-rest-of", creature = creature.to_string())
            }
            Fact::ItemUsed { creature, item, action_line } => tr!(
                "log-uses-the-004",
                creature = creature.to_string(),
                item = item.to_string(),
                action_line = action_line.to_string()
            ),
            Fact::Healed { creature, source, dice, amount } => {
                tr!(
                    "log-heals-hp-from-the",
                    creature = creature.to_string(),
                    amount = amount.to_string(),
                    source = source.to_string(),
                    expr = dice.expr.to_string(),
                    faces = format!("{:?}", dice.faces)
                )
            }
            Fact::CastingBegun { caster, spell, target, defensively } => tr!(
                "log-begins-casting-at",
                caster = caster.to_string(),
                spell = spell.to_string(),
                target = target.to_string(),
                defensively = (if *defensively { tr("log-defensively") } else { String::new() }).to_string()
            ),
            Fact::CastingContinues { caster, spell } => {
                tr!("log-goes-on-casting", caster = caster.to_string(), spell = spell.to_string())
            }
            Fact::SpellTakesEffect { caster, spell, target } => tr!(
                "log-s-takes-effect-on",
                caster = caster.to_string(),
                spell = spell.to_string(),
                target = target.to_string()
            ),
            Fact::SpellLost { caster, spell, reason } => {
                tr!(
                    "log-loses",
                    caster = caster.to_string(),
                    spell = spell.to_string(),
                    reason = super::rules_words::reason(reason)
                )
            }
            Fact::ChargeHeld { caster, spell } => {
                tr!("log-holds-the-charge-of-it", caster = caster.to_string(), spell = spell.to_string())
            }
            Fact::Breathed { creature, shape, toward, covered, dice, dc, ready_in_round } => {
                let covered: Vec<String> = covered.iter().map(|c| c.0.clone()).collect();
                tr!(
                    "log-breathes-a-at-reflex-dc",
                    creature = creature.to_string(),
                    shape = shape.name().to_string(),
                    toward = toward.to_string(),
                    expr = dice.expr.to_string(),
                    faces = format!("{:?}", dice.faces),
                    dice = dice.total.to_string(),
                    dc = dc.to_string(),
                    covered = covered.join(", "),
                    ready_in_round = ready_in_round.to_string()
                )
            }
            Fact::TookOff { creature, altitude_m } => {
                tr!("log-takes-off-to-m", creature = creature.to_string(), altitude_m = altitude_m.to_string())
            }
            Fact::Landed { creature } => tr!("log-lands", creature = creature.to_string()),
            Fact::FlybyResumed { creature, from, to } => tr!(
                "log-flies-on-from-to",
                creature = creature.to_string(),
                from = from.to_string(),
                to = to.to_string()
            ),
            Fact::Flew { creature, from, to, band: Some(band), heading, spent, status, maneuvers, .. } => tr!(
                "log-flies-from-to-chase-squares",
                creature = creature.to_string(),
                from = from.to_string(),
                to = to.to_string(),
                spent = spent.to_string(),
                status = super::speed_words(*status),
                maneuvers = maneuvers.to_string(),
                band = band.to_string(),
                heading = super::heading_words(*heading)
            ),
            Fact::Flew { creature, from, to, altitude_m, climbed_m, heading, spent, status, maneuvers, band: None } => {
                tr!(
                    "log-flies-from-to-squares-manoeuvres",
                    creature = creature.to_string(),
                    from = from.to_string(),
                    to = to.to_string(),
                    spent = spent.to_string(),
                    status = super::speed_words(*status),
                    maneuvers = maneuvers.to_string(),
                    climbed_m = format!("{:+}", climbed_m),
                    altitude_m = altitude_m.to_string(),
                    heading = super::heading_words(*heading)
                )
            }
            Fact::Collided { creature, with, dice, impact, total } => {
                tr!(
                    "log-collides-with",
                    creature = creature.to_string(),
                    with = with.to_string(),
                    expr = dice.expr.to_string(),
                    faces = format!("{:?}", dice.faces),
                    impact = impact.to_string(),
                    value = total.to_string()
                )
            }
            Fact::CollisionShared { creature, total } => {
                tr!("log-takes-its-share-of-its", creature = creature.to_string(), value = total.to_string())
            }
            Fact::Mounted { creature, mount, passenger: false } => {
                tr!("log-gets-on-and-rides-it", creature = creature.to_string(), mount = mount.to_string())
            }
            Fact::Mounted { creature, mount, passenger: true } => {
                tr!("log-gets-on-as-a-passenger", creature = creature.to_string(), mount = mount.to_string())
            }
            Fact::ReinsTaken { creature, mount, from: Some(rider), action } => {
                tr!(
                    "log-changes-places-with-and-takes",
                    creature = creature.to_string(),
                    rider = rider.to_string(),
                    mount = mount.to_string(),
                    action = action.to_string()
                )
            }
            Fact::ReinsTaken { creature, mount, from: None, action } => {
                tr!(
                    "log-slides-into-s-free-rider",
                    creature = creature.to_string(),
                    mount = mount.to_string(),
                    action = action.to_string()
                )
            }
            Fact::Dismounted { creature, mount, to } => {
                tr!("log-gets-off-to", creature = creature.to_string(), mount = mount.to_string(), to = to.to_string())
            }
            Fact::Fell { creature, metres, altitude_m, reason } => {
                tr!(
                    "log-falls-m-to-m",
                    creature = creature.to_string(),
                    metres = metres.to_string(),
                    altitude_m = altitude_m.to_string(),
                    reason = super::rules_words::reason(reason)
                )
            }
            Fact::FallingDamage { creature, dice, total } => {
                tr!(
                    "log-hits-the-ground",
                    creature = creature.to_string(),
                    expr = dice.expr.to_string(),
                    faces = format!("{:?}", dice.faces),
                    value = total.to_string()
                )
            }
            Fact::Rested { hours, bed_rest } => {
                tr!(
                    "log-everyone-rests-h",
                    hours = hours.to_string(),
                    bed = (if *bed_rest { tr("log-in-bed") } else { String::new() }).to_string()
                )
            }
            Fact::RecoveryRolled { creature, hour, check, roll, success } => {
                tr!(
                    "log-hour-d100-to",
                    creature = creature.to_string(),
                    hour = hour.to_string(),
                    roll = roll.to_string(),
                    check = check.to_string(),
                    no = (if *success { tr("log-yes") } else { tr("log-no") }).to_string()
                )
            }
            Fact::RestHealed { creature, hour, amount, nonlethal, reason } => tr!(
                "log-hour",
                creature = creature.to_string(),
                hour = hour.to_string(),
                amount = amount.to_string(),
                regained =
                    (if *nonlethal { tr("log-nonlethal-damage-fades") } else { tr("log-hp-regained") }).to_string(),
                reason = super::rules_words::reason(reason)
            ),
            Fact::FullRoundActionLost { creature, action } => {
                tr!("log-s-begun-last-round-is", creature = creature.to_string(), action = super::action_words(action))
            }
            Fact::ReadyLapsed { creature } => tr!("log-s-readied-action-lapses", creature = creature.to_string()),
            Fact::Parted { rounds } => {
                tr!("log-rounds-without-a-blow-a", rounds = rounds.to_string())
            }
            Fact::EncounterEnded { winner } => match winner {
                Some(w) => tr!("log-the-fight-is-over-win", w = w.to_string()),
                None => tr("log-the-fight-is-over-no"),
            },
            other => unreachable!("{other:?} is another group's"),
        }
    }
}

/// One side's bonus in an opposed check, term by term; `+0` when it has none.
fn opposed_terms(terms: &[crate::rules::core::creature::Modifier]) -> String {
    let words = super::rules_words::terms(terms);
    if words.is_empty() { "+0".to_string() } else { words }
}
