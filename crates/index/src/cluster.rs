//! Clusters of near-duplicates: the connected components of the verified
//! pairs (union-find), each led by its earliest document, so that keeping
//! every cluster's representative and dropping its other members
//! deduplicates a collection deterministically.

/// A verified near-duplicate pair of a collection, by position (`a < b`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct VerifiedPair {
    /// The earlier document.
    pub a: u32,
    /// The later document.
    pub b: u32,
    /// Hamming distance of their simhash-doc values.
    pub distance: u32,
    /// Exact Jaccard similarity of their word shingle sets.
    pub jaccard: f64,
}

/// The connected components of two or more of `count` documents joined by
/// `pairs` (positions below `count`), each sorted so that its
/// representative (the earliest document) comes first; clusters in the
/// order of their representatives.
///
/// A pair of a document with itself joins nothing: a document is never
/// its own duplicate, and a cluster never names one document twice.
///
/// # Panics
/// If a pair names a position at or above `count`.
pub fn clusters(count: usize, pairs: impl IntoIterator<Item = (u32, u32)>) -> Vec<Vec<u32>> {
    let mut parent: Vec<u32> = (0..count as u32).collect();
    for (a, b) in pairs {
        let (ra, rb) = (root(&mut parent, a), root(&mut parent, b));
        if ra != rb {
            // The smaller number is the root, so the root is the earliest member.
            parent[ra.max(rb) as usize] = ra.min(rb);
        }
    }
    let mut members: std::collections::BTreeMap<u32, Vec<u32>> = std::collections::BTreeMap::new();
    for x in 0..count as u32 {
        let r = root(&mut parent, x);
        members.entry(r).or_default().push(x);
    }
    members.into_values().filter(|members| members.len() > 1).collect()
}

/// The root of `x`'s tree, halving the path on the way.
fn root(parent: &mut [u32], mut x: u32) -> u32 {
    while parent[x as usize] != x {
        parent[x as usize] = parent[parent[x as usize] as usize];
        x = parent[x as usize];
    }
    x
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clusters_are_components_led_by_their_earliest_member() {
        let pairs = [(3, 5), (1, 2), (5, 7), (2, 7)];
        assert_eq!(clusters(9, pairs), vec![vec![1, 2, 3, 5, 7]]);
        assert_eq!(clusters(4, [(2, 3)]), vec![vec![2, 3]]);
        assert_eq!(clusters(6, [(4, 5), (0, 1)]), vec![vec![0, 1], vec![4, 5]]);
        assert!(clusters(3, []).is_empty());
    }

    #[test]
    fn a_document_paired_with_itself_is_no_cluster() {
        assert!(clusters(3, [(1, 1)]).is_empty());
        assert_eq!(clusters(3, [(1, 1), (0, 1)]), vec![vec![0, 1]]);
    }

    #[test]
    fn components_agree_with_a_brute_force_closure() {
        let mut rng = fastrand::Rng::with_seed(21);
        for _ in 0..200 {
            let count = rng.usize(1..40);
            let pairs: Vec<(u32, u32)> =
                (0..rng.usize(..30)).map(|_| (rng.u32(..count as u32), rng.u32(..count as u32))).collect();
            // Brute force: label each document with the smallest it reaches.
            let mut label: Vec<u32> = (0..count as u32).collect();
            loop {
                let mut changed = false;
                for &(a, b) in &pairs {
                    let low = label[a as usize].min(label[b as usize]);
                    for x in [a, b] {
                        if label[x as usize] != low {
                            label[x as usize] = low;
                            changed = true;
                        }
                    }
                }
                if !changed {
                    break;
                }
            }
            let mut expected: std::collections::BTreeMap<u32, Vec<u32>> = Default::default();
            for (x, &l) in label.iter().enumerate() {
                expected.entry(l).or_default().push(x as u32);
            }
            let expected: Vec<Vec<u32>> = expected.into_values().filter(|m| m.len() > 1).collect();
            assert_eq!(clusters(count, pairs.iter().copied()), expected, "{pairs:?}");
        }
    }
}
