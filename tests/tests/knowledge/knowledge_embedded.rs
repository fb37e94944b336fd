//! The back-end suite on the durable embedded store, plus what only a
//! durable store must do: reopen with every version, cut off a write a
//! crash cut short, refuse a damaged file clearly, let one process at a
//! time open it, keep aside what it cuts, and read every stored version
//! through a redeployed type.

use learnables_tests::backend_suite;
use learnables_tests::support::backend_suite;

use learnables::knowledge::{LogStorage, ReviewRecord, Storage, StoreError, VersionRecord, Wake};

/// The embedded store in a temporary directory of its own, which is
/// removed when the knowledge lets go of the store (after the store is
/// closed: fields drop in order), even when the test failed.
struct InTempDir {
    storage: LogStorage,
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

    fn append_review(&self, record: &ReviewRecord) -> Result<(), StoreError> {
        self.storage.append_review(record)
    }

    fn load_reviews(&self) -> Result<Vec<ReviewRecord>, StoreError> {
        self.storage.load_reviews()
    }
}

/// `Knowledge::open` on a fresh directory, removed with the knowledge.
fn in_a_fresh_dir() -> Knowledge {
    let dir = tempfile::tempdir().unwrap();
    let storage = LogStorage::open(dir.path()).unwrap();
    Knowledge::with_storage(InTempDir { storage, _dir: dir }).unwrap()
}

backend_suite!(in_a_fresh_dir);

#[test]
fn reopening_restores_every_version_with_the_same_ids() {
    let dir = tempfile::tempdir().unwrap();
    backend_suite::assert_reopening_restores_every_version(|| Knowledge::open(dir.path()).unwrap());
}

#[test]
fn reopening_keeps_every_proposal_approval_and_rejection() {
    let dir = tempfile::tempdir().unwrap();
    learnables_tests::support::review_suite::assert_proposals_survive_reopening(|| {
        Knowledge::open(dir.path()).unwrap()
    });
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
    let file = dir.path().join("knowledge.log");
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
    let file = dir.path().join("knowledge.log");
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

/// Knowledge in `dir` with `lessons` routing rules taught, closed again:
/// the history it acknowledged.
fn taught(dir: &std::path::Path, lessons: usize) -> Vec<VersionRecord> {
    let knowledge = registered(Knowledge::open(dir).unwrap());
    for i in 0..lessons {
        knowledge
            .teach(&rule_lesson(
                &learnables_examples::Chapter::nth(i).to_string(),
                "general",
            ))
            .unwrap();
    }
    knowledge.history("routing_rules")
}

/// The files a store in `dir` kept aside when it cut its log's tail off,
/// with their bytes, oldest first; each taken away as it is read.
fn take_cut_files(dir: &std::path::Path) -> Vec<Vec<u8>> {
    let mut names: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| {
            path.file_name()
                .and_then(|name| name.to_str())
                .is_some_and(|name| name.starts_with("knowledge.log.cut-"))
        })
        .collect();
    names.sort();
    names
        .into_iter()
        .map(|path| {
            let bytes = std::fs::read(&path).unwrap();
            std::fs::remove_file(&path).unwrap();
            bytes
        })
        .collect()
}

#[test]
fn a_write_a_crash_cut_short_is_cut_off_and_the_store_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let before = taught(dir.path(), 3);
    let file = dir.path().join("knowledge.log");
    let intact = std::fs::read(&file).unwrap();
    {
        let knowledge = registered(Knowledge::open(dir.path()).unwrap());
        knowledge.teach(&rule_lesson("04", "cold chain")).unwrap();
    }
    // Closed: the fourth group, then its seal.
    let with_fourth = std::fs::read(&file).unwrap();
    assert!(with_fourth.len() > intact.len() + 16);
    // The file cut anywhere from inside the seal closing the third
    // lesson's group (the last 16 bytes of `intact`) to just before the
    // fourth group's last byte: what a crash leaves of a write.
    let fourth_end = with_fourth.len() - 16;
    for cut in (intact.len() - 16..fourth_end)
        .step_by(7)
        .chain([fourth_end - 1])
    {
        std::fs::write(&file, &with_fourth[..cut]).unwrap();
        let knowledge = registered(Knowledge::open(dir.path()).unwrap());
        assert_eq!(knowledge.history("routing_rules"), before, "cut at {cut}");
        // What was cut is kept aside; the third group is sealed again.
        let log_end = if cut < intact.len() {
            intact.len() - 16
        } else {
            intact.len()
        };
        let kept = take_cut_files(dir.path());
        if cut > log_end {
            assert_eq!(kept, [with_fourth[log_end..cut].to_vec()], "cut at {cut}");
        } else {
            assert!(kept.is_empty(), "cut at {cut}");
        }
        assert_eq!(std::fs::read(&file).unwrap(), intact, "cut at {cut}");
        let result = knowledge.teach(&rule_lesson("05", "general")).unwrap();
        assert_eq!(result.definition_version, 4, "cut at {cut}");
        drop(knowledge);
        let reopened = registered(Knowledge::open(dir.path()).unwrap());
        assert_eq!(reopened.history("routing_rules").len(), 4, "cut at {cut}");
    }
}

/// 100 bytes no store writes, the same on every run.
fn junk() -> Vec<u8> {
    let mut state: u32 = 0x2545_f491;
    (0..100)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 17;
            state ^= state << 5;
            state as u8
        })
        .collect()
}

#[test]
fn every_tail_a_crash_or_a_power_cut_leaves_is_kept_aside_and_cut_off() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("knowledge.log");
    let acknowledged = taught(dir.path(), 3);
    let sealed = std::fs::read(&file).unwrap();
    // A fourth lesson's write, alone: the group without the seal that
    // closing the store adds.
    {
        let knowledge = registered(Knowledge::open(dir.path()).unwrap());
        knowledge.teach(&rule_lesson("04", "cold chain")).unwrap();
    }
    let fourth_write = std::fs::read(&file).unwrap()[sealed.len()..].to_vec();
    let fourth_write = fourth_write[..fourth_write.len() - 16].to_vec();
    let mut half_padded = fourth_write[..fourth_write.len() / 2].to_vec();
    half_padded.resize(4096 - sealed.len() % 4096, 0);
    let tails = [
        ("17 zero bytes", vec![0; 17]),
        ("4 KiB of zeros", vec![0; 4096]),
        ("64 KiB of zeros", vec![0; 65_536]),
        ("100 random bytes", junk()),
        ("half a group, zero-padded to a 4 KiB boundary", half_padded),
        (
            "the last write, never acknowledged, zeroed in place",
            vec![0; fourth_write.len()],
        ),
    ];
    for (what, tail) in tails {
        let mut bytes = sealed.clone();
        bytes.extend(&tail);
        std::fs::write(&file, &bytes).unwrap();
        let knowledge = registered(
            Knowledge::open(dir.path())
                .unwrap_or_else(|error| panic!("{what}: the store must open, but: {error}")),
        );
        assert_eq!(knowledge.history("routing_rules"), acknowledged, "{what}");
        assert_eq!(
            take_cut_files(dir.path()),
            [tail],
            "{what}: the cut is kept aside"
        );
        assert_eq!(std::fs::read(&file).unwrap(), sealed, "{what}");
        let result = knowledge.teach(&rule_lesson("05", "general")).unwrap();
        assert_eq!(result.definition_version, 4, "{what}");
        drop(knowledge);
        let reopened = registered(Knowledge::open(dir.path()).unwrap());
        assert_eq!(reopened.history("routing_rules").len(), 4, "{what}");
        assert!(
            take_cut_files(dir.path()).is_empty(),
            "{what}: a closed store has no tail"
        );
        drop(reopened);
        std::fs::write(&file, &sealed).unwrap();
    }
}

#[test]
fn a_flipped_bit_in_a_sealed_group_is_refused_with_the_file_and_the_byte() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("knowledge.log");
    let acknowledged = taught(dir.path(), 3);
    let mut bytes = std::fs::read(&file).unwrap();
    // The last group's last byte, with the seal after it and zeros after
    // that: not a tail, an acknowledged lesson damaged.
    let last_group_byte = bytes.len() - 17;
    bytes[last_group_byte] ^= 0x04;
    bytes.extend(vec![0; 4096]);
    std::fs::write(&file, &bytes).unwrap();
    let error = Knowledge::open(dir.path()).expect_err("damage before a seal is refused");
    let message = error.to_string();
    assert!(message.contains(&file.display().to_string()), "{message}");
    assert!(message.contains("at byte "), "{message}");
    assert!(message.contains("restore it from a backup"), "{message}");
    assert!(
        take_cut_files(dir.path()).is_empty(),
        "a refusal cuts nothing"
    );
    assert_eq!(
        std::fs::read(&file).unwrap(),
        bytes,
        "a refusal changes nothing"
    );
    // Put back, the store opens with every lesson.
    bytes[last_group_byte] ^= 0x04;
    bytes.truncate(bytes.len() - 4096);
    std::fs::write(&file, &bytes).unwrap();
    let reopened = registered(Knowledge::open(dir.path()).unwrap());
    assert_eq!(reopened.history("routing_rules"), acknowledged);
}

#[test]
fn an_acknowledged_group_is_sealed_when_the_store_opens() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("knowledge.log");
    taught(dir.path(), 2);
    let sealed = std::fs::read(&file).unwrap();
    // A crash after the last acknowledgment: its group left unsealed.
    std::fs::write(&file, &sealed[..sealed.len() - 16]).unwrap();
    let knowledge = registered(Knowledge::open(dir.path()).unwrap());
    // Sealed again before the store takes a lesson: a byte changed in that
    // group now is damage, not a crash.
    assert_eq!(std::fs::read(&file).unwrap(), sealed);
    drop(knowledge);
    let mut changed = sealed.clone();
    let in_last_group = sealed.len() - 20;
    changed[in_last_group] ^= 0x01;
    std::fs::write(&file, &changed).unwrap();
    assert!(Knowledge::open(dir.path()).is_err());
}

#[test]
fn a_new_store_in_new_directories_opens_and_reopens() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("new").join("nested").join("store");
    registered(Knowledge::open(&store).unwrap())
        .teach(&rule_lesson("84", "general"))
        .unwrap();
    assert_eq!(
        registered(Knowledge::open(&store).unwrap())
            .history("routing_rules")
            .len(),
        1
    );
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        for made in [dir.path().join("new"), dir.path().join("new/nested"), store] {
            let mode = std::fs::metadata(&made).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o700, "{}", made.display());
        }
    }
}

#[test]
fn a_store_open_already_is_refused_until_it_is_closed() {
    let dir = tempfile::tempdir().unwrap();
    let first = Knowledge::open(dir.path()).unwrap();
    let error = Knowledge::open(dir.path()).expect_err("one opener at a time");
    let message = error.to_string();
    assert!(message.contains("is open already"), "{message}");
    assert!(
        message.contains(&dir.path().join("knowledge.log").display().to_string()),
        "{message}"
    );
    drop(first);
    Knowledge::open(dir.path()).expect("free once closed");
}

/// A learnable as one build stored it, and as the next build reads it.
mod redeploy {
    use learnables::Learnable;

    #[derive(Learnable, Debug, Clone, PartialEq)]
    #[learnable(
        collection = "desks",
        entry = "chapter",
        teaches = "Which desk handles a chapter",
        how = "A table keyed on the HS chapter, kept by the desk leads",
        decided_by = "rules",
        describes = "Chapter {entry}: {desk}"
    )]
    pub struct Before {
        /// Desk
        pub desk: String,
        /// Note
        pub note: Option<String>,
    }

    /// `desk` renamed `office`, the old name kept; `note` removed.
    #[derive(Learnable, Debug, Clone, PartialEq)]
    #[learnable(
        collection = "desks",
        entry = "chapter",
        teaches = "Which desk handles a chapter",
        how = "A table keyed on the HS chapter, kept by the desk leads",
        decided_by = "rules",
        describes = "Chapter {entry}: {office}"
    )]
    pub struct After {
        /// Office
        #[learnable(alias = "desk")]
        pub office: String,
    }

    /// The same rename without the alias.
    #[derive(Learnable, Debug, Clone, PartialEq)]
    #[learnable(
        collection = "desks",
        entry = "chapter",
        teaches = "Which desk handles a chapter",
        how = "A table keyed on the HS chapter, kept by the desk leads",
        decided_by = "rules",
        describes = "Chapter {entry}: {office}"
    )]
    pub struct AfterWithoutAlias {
        /// Office
        pub office: String,
    }
}

#[test]
fn a_redeploy_with_a_renamed_and_a_removed_field_reads_every_version_through_an_alias() {
    use redeploy::{After, AfterWithoutAlias, Before};
    let dir = tempfile::tempdir().unwrap();
    {
        let knowledge = Knowledge::open(dir.path()).unwrap();
        knowledge.register::<Before>().unwrap();
        for (entry, desk) in [
            ("84", "general"),
            ("85", "cold chain"),
            ("84", "dangerous goods"),
        ] {
            let value = serde_json::json!({"desk": desk, "note": "kept by ana"});
            knowledge.teach(&lesson("desks", entry, value)).unwrap();
        }
    }
    // Without the alias, the stored versions do not read: refused at start.
    let knowledge = Knowledge::open(dir.path()).unwrap();
    assert!(knowledge.register::<AfterWithoutAlias>().is_err());
    drop(knowledge);

    let knowledge = Knowledge::open(dir.path()).unwrap();
    knowledge.register::<After>().unwrap();
    let office = |office: &str| {
        Some(After {
            office: office.into(),
        })
    };
    assert_eq!(
        knowledge.pin().get::<After>("84"),
        office("dangerous goods")
    );
    // A task pinned before the redeploy reads what it read then.
    assert_eq!(knowledge.pin_at(1).get::<After>("84"), office("general"));
    assert_eq!(knowledge.pin_at(2).get::<After>("85"), office("cold chain"));
    // A lesson may use the earlier name; the removed field is refused.
    let old_name = lesson("desks", "86", serde_json::json!({"desk": "general"}));
    assert!(knowledge.teach(&old_name).unwrap().learned);
    let removed = lesson(
        "desks",
        "87",
        serde_json::json!({"office": "general", "note": "x"}),
    );
    assert!(knowledge.teach(&removed).is_err());
}

#[test]
fn a_store_dropped_reopens_at_once_while_the_process_starts_others() {
    // A process started while the store is open inherits its file until
    // it runs its program: dropping the store must release the lock all
    // the same, or a reopen right after finds it "open already".
    let dir = tempfile::tempdir().unwrap();
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let starter = {
        let stop = stop.clone();
        std::thread::spawn(move || {
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                let _ = std::process::Command::new("true").status();
            }
        })
    };
    let outcome = std::panic::catch_unwind(|| {
        for round in 0..300 {
            let knowledge = registered(Knowledge::open(dir.path()).unwrap());
            let desk = if round % 2 == 0 {
                "general"
            } else {
                "cold chain"
            };
            knowledge.teach(&rule_lesson("05", desk)).unwrap();
            drop(knowledge);
            Knowledge::open(dir.path()).unwrap_or_else(|error| panic!("round {round}: {error}"));
        }
    });
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    starter.join().unwrap();
    if let Err(panic) = outcome {
        std::panic::resume_unwind(panic);
    }
}
