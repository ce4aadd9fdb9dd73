//! Every document needs its own id: two documents of one id would make
//! every answer about either ambiguous.

use crate::CorpusError;
use priorart_dedup::{Catalog, Kept};
use std::collections::HashMap;

/// Most repeated ids an error lists.
const LISTED_DUPLICATES: usize = 5;

/// The ids given so far and where, and the ids given twice.
#[derive(Default)]
pub(crate) struct Identities {
    places: HashMap<String, String>,
    repeated: Vec<(String, String, String)>,
}

impl Identities {
    /// Records that `id` names the document at `place`.
    pub(crate) fn claim(&mut self, id: &str, place: String) {
        match self.places.get(id) {
            Some(first) => self.repeated.push((id.to_owned(), first.clone(), place)),
            None => {
                self.places.insert(id.to_owned(), place);
            }
        }
    }

    /// An error naming the ids given twice, if any.
    pub(crate) fn check(&self) -> Result<(), CorpusError> {
        match self.repeated.first() {
            None => Ok(()),
            Some(first) => {
                let others: Vec<&str> = self.repeated[1..].iter().map(|(id, _, _)| id.as_str()).collect();
                Err(repeated_ids(first, &others, self.repeated.len()))
            }
        }
    }
}

/// The error for ids given to two documents: the first with both places,
/// then up to [`LISTED_DUPLICATES`] in all, of `count`.
fn repeated_ids(
    (id, first, second): &(String, String, String),
    others: &[&str],
    count: usize,
) -> CorpusError {
    let more = match count {
        1 => String::new(),
        n => {
            let listed: Vec<String> =
                others.iter().take(LISTED_DUPLICATES - 1).map(|id| format!("{id:?}")).collect();
            let unlisted = n.saturating_sub(LISTED_DUPLICATES);
            let tail = if unlisted > 0 { format!(" and {unlisted} more") } else { String::new() };
            format!(", and {} other id(s): {}{tail}", n - 1, listed.join(", "))
        }
    };
    CorpusError::RepeatedId { id: id.clone(), first: first.clone(), second: second.clone(), more }
}

/// Refuses a catalog in which two documents have one id (as
/// [`crate::read_all`] does while it reads when asked to); `origin` names
/// where document `number` was read.
pub fn refuse_repeated_ids<K: Kept>(
    catalog: &Catalog<K>,
    origin: impl Fn(u32) -> String,
) -> Result<(), CorpusError> {
    let ids = catalog.ids();
    let (repeated, count) = ids.repeated(LISTED_DUPLICATES);
    let Some(&(earlier, later)) = repeated.first() else { return Ok(()) };
    let first = (ids.get(later).to_owned(), origin(earlier), origin(later));
    let others: Vec<&str> = repeated[1..].iter().map(|&(_, later)| ids.get(later)).collect();
    Err(repeated_ids(&first, &others, count))
}
