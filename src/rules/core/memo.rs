//! Tables other chapters derive from a map once and share between every search on it until the map
//! changes: the movement chapter's table of what the ground alone says of each step. The map keeps
//! them without knowing their types (a chapter above the core owns each), drops them all on any change,
//! and hands the same tables to its clones (a battle cloned from a level reuses what the level built).

use std::any::{Any, TypeId};
use std::sync::{Arc, Mutex, PoisonError};

type Entry = (TypeId, u64, Arc<dyn Any + Send + Sync>);

/// A few derived tables, each known by its type and a key the chapter chooses.
#[derive(Default)]
pub struct Memo {
    entries: Mutex<Vec<Entry>>,
}

impl Memo {
    /// The table of type `T` under `key`, built by `build` the first time.
    pub fn get_or_build<T: Any + Send + Sync>(&self, key: u64, build: impl FnOnce() -> T) -> Arc<T> {
        let mut entries = self.entries.lock().unwrap_or_else(PoisonError::into_inner);
        let found = entries
            .iter()
            .find(|(ty, k, _)| *ty == TypeId::of::<T>() && *k == key)
            .and_then(|(_, _, table)| Arc::clone(table).downcast::<T>().ok());
        if let Some(table) = found {
            return table;
        }
        let table = Arc::new(build());
        entries.push((TypeId::of::<T>(), key, Arc::clone(&table) as Arc<dyn Any + Send + Sync>));
        table
    }

    /// Forgets every table: the map changed.
    pub fn clear(&mut self) {
        self.entries.get_mut().unwrap_or_else(PoisonError::into_inner).clear();
    }

    /// How many tables are kept.
    pub fn len(&self) -> usize {
        self.entries.lock().unwrap_or_else(PoisonError::into_inner).len()
    }

    /// Whether none is kept.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl Clone for Memo {
    fn clone(&self) -> Self {
        let entries = self.entries.lock().unwrap_or_else(PoisonError::into_inner).clone();
        Memo { entries: Mutex::new(entries) }
    }
}

/// Derived tables never make two maps different.
impl PartialEq for Memo {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl Eq for Memo {}

impl std::fmt::Debug for Memo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Memo({} tables)", self.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_table_is_built_once_per_key_and_forgotten_on_clear() {
        let mut memo = Memo::default();
        let mut builds = 0;
        let a = memo.get_or_build(1, || {
            builds += 1;
            vec![1u8]
        });
        let b = memo.get_or_build(1, || {
            builds += 1;
            vec![2u8]
        });
        assert_eq!((a[0], b[0], builds), (1, 1, 1));
        assert_eq!(memo.get_or_build(2, || vec![3u8])[0], 3);
        let copy = memo.clone();
        assert_eq!(copy.len(), 2);
        memo.clear();
        assert_eq!(memo.get_or_build(1, || vec![4u8])[0], 4);
        assert_eq!(copy.get_or_build(1, || vec![5u8])[0], 1);
    }
}
