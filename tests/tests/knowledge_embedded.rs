//! The back-end suite on the durable embedded store, plus what only a
//! durable store must do: reopen with every version, and refuse a damaged
//! file clearly.

mod backend_suite;

use learnables::knowledge::{RedbStorage, Storage, StoreError, VersionRecord, Wake};

/// The embedded store in a temporary directory of its own, which is
/// removed when the knowledge lets go of the store (after the store is
/// closed: fields drop in order), even when the test failed.
struct InTempDir {
    storage: RedbStorage,
    _dir: tempfile::TempDir,
}

impl Storage for InTempDir {
    fn load(&self) -> Result<Vec<VersionRecord>, StoreError> {
        self.storage.load()
    }

    fn append(&self, records: &[VersionRecord]) -> Result<(), StoreError> {
        self.storage.append(records)
    }

    fn load_since(&self, position: u64) -> Result<Vec<VersionRecord>, StoreError> {
        self.storage.load_since(position)
    }

    fn watch(&self, wake: Wake) -> Result<(), StoreError> {
        self.storage.watch(wake)
    }
}

/// `Knowledge::open` on a fresh directory, removed with the knowledge.
fn in_a_fresh_dir() -> Knowledge {
    let dir = tempfile::tempdir().unwrap();
    let storage = RedbStorage::open(dir.path()).unwrap();
    Knowledge::with_storage(InTempDir { storage, _dir: dir }).unwrap()
}

backend_suite!(in_a_fresh_dir);

#[test]
fn reopening_restores_every_version_with_the_same_ids() {
    let dir = tempfile::tempdir().unwrap();
    backend_suite::assert_reopening_restores_every_version(|| Knowledge::open(dir.path()).unwrap());
}

#[test]
fn a_damaged_store_is_refused_with_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    {
        let knowledge = registered(Knowledge::open(dir.path()).unwrap());
        for i in 0..50 {
            knowledge
                .teach(&rule_lesson(
                    &learnables_examples::Chapter::nth(i).to_string(),
                    "general",
                ))
                .unwrap();
        }
    }
    let file = dir.path().join("knowledge.redb");
    let mut bytes = std::fs::read(&file).unwrap();
    let len = bytes.len();
    for byte in &mut bytes[len / 4..len / 2] {
        *byte ^= 0x5a;
    }
    std::fs::write(&file, &bytes).unwrap();
    let error = Knowledge::open(dir.path()).expect_err("a damaged store must not open");
    let message = error.to_string();
    assert!(message.starts_with("the knowledge store"), "{message}");
}

#[test]
fn a_directory_that_cannot_hold_a_store_is_reported() {
    let dir = tempfile::tempdir().unwrap();
    let not_a_dir = dir.path().join("file");
    std::fs::write(&not_a_dir, b"x").unwrap();
    let error = Knowledge::open(&not_a_dir).unwrap_err();
    assert!(
        error.to_string().starts_with(&format!(
            "the knowledge store at {} cannot be opened:",
            not_a_dir.display()
        )),
        "{error}"
    );
}

#[test]
fn a_flipped_byte_anywhere_is_refused_or_harmless_never_silent_loss() {
    let dir = tempfile::tempdir().unwrap();
    let expected = {
        let knowledge = registered(Knowledge::open(dir.path()).unwrap());
        for i in 0..40 {
            knowledge
                .teach(&rule_lesson(
                    &learnables_examples::Chapter::nth(i).to_string(),
                    "cold chain",
                ))
                .unwrap();
        }
        knowledge.history("routing_rules")
    };
    let file = dir.path().join("knowledge.redb");
    let pristine = std::fs::read(&file).unwrap();
    let step = (pristine.len() / 24).max(1);
    let mut refused = 0;
    for offset in (0..pristine.len()).step_by(step) {
        let mut bytes = pristine.clone();
        bytes[offset] ^= 0x01;
        std::fs::write(&file, &bytes).unwrap();
        match Knowledge::open(dir.path()) {
            Ok(knowledge) => assert_eq!(
                knowledge.history("routing_rules"),
                expected,
                "a byte flipped at {offset} was read as different lessons"
            ),
            Err(error) => {
                refused += 1;
                assert!(
                    error.to_string().starts_with("the knowledge store"),
                    "{error}"
                );
            }
        }
    }
    assert!(refused > 0, "some flipped bytes must be detected");
}
