//! Building the kind 1041: tags in the NIP's two forms, and refusals.

use crate::common;

use base64::Engine;
use common::{alice, mallory, peer};
use priorart_nip::nostr::prelude::*;
use priorart_nip::{Attestation, ContentRef, ProofEvent, ProofEventError};

fn attestation(k: Option<u16>) -> Attestation {
    let x = priorart_fingerprint::minhash_equality_v1(common::TEXT);
    Attestation::sign(&alice(), x, k, Timestamp::from_secs(1_700_000_000)).expect("signs")
}

fn spec<'a>(attestation: &'a Attestation, content: ContentRef, proof: &'a [u8]) -> ProofEvent<'a> {
    ProofEvent {
        attestation,
        content,
        content_kind: None,
        relay_hint: Some("wss://relay.example"),
        proof,
        created_at: Timestamp::from_secs(1_700_000_100),
    }
}

fn article(author: &Keys) -> ContentRef {
    ContentRef::parse_address(&format!("30023:{}:essay-1", author.public_key().to_hex())).expect("coordinate")
}

#[test]
fn addressable_form_has_a_k_x_description_and_base64_content() {
    let attestation = attestation(Some(30023));
    let proof = common::bitcoin_claim(&attestation.commitment().0, 5);
    let event = spec(&attestation, article(&alice()), &proof).sign(&mallory()).expect("builds");
    let tags: Vec<Vec<String>> = event.tags.iter().map(|t| t.clone().to_vec()).collect();
    let x = attestation.fingerprint().to_string();
    let coordinate = format!("30023:{}:essay-1", alice().public_key().to_hex());
    assert_eq!(
        tags,
        vec![
            vec!["a".to_owned(), coordinate, "wss://relay.example".to_owned()],
            vec!["k".to_owned(), "30023".to_owned()],
            vec!["X".to_owned(), x, "minhash-equality-v1".to_owned()],
            vec!["description".to_owned(), attestation.to_json()],
        ]
    );
    assert_eq!(event.kind.as_u16(), 1041);
    assert_eq!(event.pubkey, mallory().public_key()); // any signer
    assert_eq!(base64::engine::general_purpose::STANDARD.decode(&event.content).unwrap(), proof);
    if peer::available() {
        assert_eq!(peer::verify(&[priorart_nip::to_json(&event)]), vec![(true, Some(true))]);
    }
}

#[test]
fn event_form_has_e_p_and_takes_k_from_the_attestation() {
    let attestation = attestation(Some(1));
    let proof = common::bitcoin_claim(&attestation.commitment().0, 5);
    let id = EventId::from_byte_array([9; 32]);
    let content = ContentRef::Event { id, author: alice().public_key() };
    let event = spec(&attestation, content, &proof).sign(&alice()).expect("builds");
    let names: Vec<&str> = event.tags.iter().map(Tag::kind).collect();
    assert_eq!(names, ["e", "p", "k", "X", "description"]);
    assert_eq!(event.tags[0].as_slice()[1], id.to_hex());
    assert_eq!(event.tags[1].as_slice()[1], alice().public_key().to_hex());
    assert_eq!(event.tags[2].as_slice()[1], "1");
}

#[test]
fn refuses_pending_only_and_foreign_proofs() {
    let attestation = attestation(Some(30023));
    let commitment = attestation.commitment().0;
    let pending = common::pending_only(&commitment);
    let err = spec(&attestation, article(&alice()), &pending).sign(&alice()).unwrap_err();
    assert!(matches!(err, ProofEventError::ProofPendingOnly), "{err}");
    assert!(err.to_string().contains("upgrade"));

    let fingerprint_proof = common::bitcoin_claim(&attestation.fingerprint().0, 5);
    let err = spec(&attestation, article(&alice()), &fingerprint_proof).sign(&alice()).unwrap_err();
    assert!(matches!(err, ProofEventError::ProofForOtherCommitment(_)), "{err}");

    let err = spec(&attestation, article(&alice()), b"not a proof").sign(&alice()).unwrap_err();
    assert!(matches!(err, ProofEventError::ProofUnparseable(_)), "{err}");
}

#[test]
fn refuses_references_that_would_fail_verification() {
    let attestation = attestation(Some(30023));
    let proof = common::bitcoin_claim(&attestation.commitment().0, 5);
    let err = spec(&attestation, article(&mallory()), &proof).sign(&alice()).unwrap_err();
    assert!(matches!(err, ProofEventError::AuthorMismatch { .. }), "{err}");

    let note = ContentRef::Event { id: EventId::from_byte_array([9; 32]), author: alice().public_key() };
    let mut unscoped = spec(&attestation, note.clone(), &proof);
    unscoped.content_kind = Some(1);
    assert!(matches!(unscoped.sign(&alice()).unwrap_err(), ProofEventError::KindMismatch { .. }));

    let bare = self::attestation(None);
    let proof = common::bitcoin_claim(&bare.commitment().0, 5);
    assert!(matches!(spec(&bare, note, &proof).sign(&alice()).unwrap_err(), ProofEventError::KindUnknown));

    assert!(matches!(ContentRef::parse_address("1:ab:c"), Err(ProofEventError::BadCoordinate)));
    let note_coordinate = format!("1:{}:x", alice().public_key().to_hex());
    assert!(matches!(ContentRef::parse_address(&note_coordinate), Err(ProofEventError::NotAddressable(1))));
}
