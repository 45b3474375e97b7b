//! Query states kept between the calls that read the world from outside its systems (the previews, the
//! AI, the rules' exclusive helpers): building a state reads the access of every component the query
//! names, which costs more than running it, and the same few queries are built thousands of times a
//! battle. Each thread keeps the states it built, one per world and query type; a call takes its state
//! and gives it back when done, so a call nested in another builds its own. A kept state sees the
//! archetypes added since (`QueryState::query` updates it) in the order a new one would.

use std::any::{Any, TypeId};
use std::cell::RefCell;
use std::collections::HashMap;
use std::ops::{Deref, DerefMut};

use bevy::ecs::query::{QueryData, QueryFilter, QueryState};
use bevy::ecs::world::WorldId;
use bevy::prelude::*;

/// The most states a thread keeps: past it (worlds made and dropped by the tests), it forgets them all.
const MOST_KEPT: usize = 1024;

thread_local! {
    static KEPT: RefCell<HashMap<(WorldId, TypeId), Box<dyn Any>>> = RefCell::new(HashMap::new());
}

/// A query's state taken from the thread's keeping, given back when dropped.
pub struct Kept<D: QueryData + 'static, F: QueryFilter + 'static = ()> {
    world: WorldId,
    state: Option<QueryState<D, F>>,
}

/// The state of the query `D` filtered by `F` on `world`: the one kept from an earlier call, or a new one.
pub fn kept<D: QueryData + 'static, F: QueryFilter + 'static>(world: &mut World) -> Kept<D, F> {
    let state = taken(world.id()).unwrap_or_else(|| world.query_filtered::<D, F>());
    Kept { world: world.id(), state: Some(state) }
}

/// [`kept`] for a caller that only reads the world: `None` where a new state could not be built, a
/// component the query names never having been registered (as `World::try_query_filtered`).
pub fn kept_ref<D: QueryData + 'static, F: QueryFilter + 'static>(world: &World) -> Option<Kept<D, F>> {
    let state = taken(world.id()).or_else(|| world.try_query_filtered::<D, F>())?;
    Some(Kept { world: world.id(), state: Some(state) })
}

/// The state of `D` filtered by `F` the thread keeps for `world`, taken from its keeping.
fn taken<D: QueryData + 'static, F: QueryFilter + 'static>(world: WorldId) -> Option<QueryState<D, F>> {
    let key = (world, TypeId::of::<QueryState<D, F>>());
    let found = KEPT.with_borrow_mut(|kept| kept.remove(&key));
    found.and_then(|s| s.downcast::<QueryState<D, F>>().ok()).map(|state| *state)
}

impl<D: QueryData + 'static, F: QueryFilter + 'static> Deref for Kept<D, F> {
    type Target = QueryState<D, F>;

    fn deref(&self) -> &Self::Target {
        self.state.as_ref().expect("a kept state is held until it is dropped")
    }
}

impl<D: QueryData + 'static, F: QueryFilter + 'static> DerefMut for Kept<D, F> {
    fn deref_mut(&mut self) -> &mut Self::Target {
        self.state.as_mut().expect("a kept state is held until it is dropped")
    }
}

impl<D: QueryData + 'static, F: QueryFilter + 'static> Drop for Kept<D, F> {
    fn drop(&mut self) {
        let Some(state) = self.state.take() else { return };
        let key = (self.world, TypeId::of::<QueryState<D, F>>());
        // A thread that is ending has no keeping left: the state is simply dropped.
        let _ = KEPT.try_with(|kept| {
            if let Ok(mut kept) = kept.try_borrow_mut() {
                if kept.len() >= MOST_KEPT {
                    kept.clear();
                }
                kept.insert(key, Box::new(state));
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Component)]
    struct Mark(u32);

    #[test]
    fn a_kept_state_sees_what_was_spawned_since_in_a_new_states_order() {
        let mut world = World::new();
        world.spawn(Mark(1));
        let first: Vec<u32> = kept::<&Mark, ()>(&mut world).iter(&world).map(|m| m.0).collect();
        world.spawn((Mark(2), Name::new("two")));
        world.spawn(Mark(3));
        let again: Vec<u32> = kept::<&Mark, ()>(&mut world).iter(&world).map(|m| m.0).collect();
        let fresh: Vec<u32> = world.query::<&Mark>().iter(&world).map(|m| m.0).collect();
        assert_eq!(first, vec![1]);
        assert_eq!(again, fresh);
        assert_eq!(again.len(), 3);
    }

    #[test]
    fn nested_calls_and_other_worlds_build_their_own() {
        let mut world = World::new();
        world.spawn(Mark(1));
        let mut other = World::new();
        other.spawn(Mark(7));
        let mut outer = kept::<&Mark, ()>(&mut world);
        let inner: Vec<u32> = kept::<&Mark, ()>(&mut world).iter(&world).map(|m| m.0).collect();
        let elsewhere: Vec<u32> = kept::<&Mark, ()>(&mut other).iter(&other).map(|m| m.0).collect();
        let outside: Vec<u32> = outer.iter(&world).map(|m| m.0).collect();
        assert_eq!((inner, elsewhere, outside), (vec![1], vec![7], vec![1]));
    }
}
