//! A poisoned blow (004:28: « Certaines créatures ... affaiblissent temporairement les caractéristiques »):
//! a weapon with a poison that hits and deals damage calls for a Fortitude save; failed, the poison's dice
//! come off the ability it weakens; at 0 the ability's consequence follows (the d20 standard,
//! docs/rulings.md).

use bevy::prelude::*;

use crate::rules::core::ability_damage::{AbilityDamage, at_zero, weaken};
use crate::rules::core::checks::roll_save;
use crate::rules::core::creature::*;
use crate::rules::core::dice::Dice;
use crate::rules::core::facts::Fact;
use crate::rules::core::names::Save;

/// Poisons `target`, struck by `attacker`'s blow with `poison`: a Fortitude save, then the ability damage.
pub(super) fn envenom(
    In((attacker, target, poison)): In<(Entity, Entity, Poison)>,
    mut dice: ResMut<Dice>,
    mut facts: MessageWriter<Fact>,
    (mut conditions, mut slay): (MessageWriter<ConditionChange>, MessageWriter<super::Slay>),
    mut victims: Query<(&CreatureId, &Saves, &mut Abilities, Option<&mut AbilityDamage>)>,
    ids: Query<&CreatureId>,
    mut commands: Commands,
) {
    let Ok(by) = ids.get(attacker).cloned() else { return };
    let Ok((id, saves, mut abilities, damage)) = victims.get_mut(target) else { return };
    let id = id.clone();
    let reason = format!("{by}'s poison (004:28)");
    if roll_save(&mut dice, &mut facts, &id, Save::Fortitude, saves, &abilities, reason, poison.dc) {
        return;
    }
    let thrown = dice.throw(poison.damage);
    let mut lost = damage.map(|d| d.clone()).unwrap_or_default();
    let taken = weaken(&mut abilities, &mut lost, poison.ability, thrown.total);
    let score = poison.ability.score(&abilities);
    commands.entity(target).insert(lost);
    facts.write(Fact::AbilityDamaged {
        creature: id,
        ability: poison.ability,
        faces: thrown.faces.clone(),
        amount: taken,
        score,
        by,
    });
    if score > 0 || taken == 0 {
        return;
    }
    if poison.ability == Ability::Con {
        // Constitution at 0 kills (004:280): as any death, hit points to -10 at most (docs/rulings.md).
        slay.write(super::Slay { target });
    } else {
        conditions.write(ConditionChange { creature: target, condition: at_zero(poison.ability), gained: true });
    }
}
