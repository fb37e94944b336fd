//! One rule set: the same cases judged by the derive at compile time and by
//! run-time validation, with the same verdict.
//!
//! Each case names a trybuild file: under `ui/learnable/` the derive must
//! refuse it (the compile-fail suite checks that it does, and its message),
//! under `ui/pass/` it must compile. The same mistake in a descriptor built
//! by hand must be refused by `validate()` at the path given, and the good
//! cases accepted.

use std::path::Path;

use learnables::{FieldKind, LearnableDescriptor, LessonField};
use learnables_rules::{Checked, Rule};

/// A valid descriptor to break one rule of at a time.
fn good() -> LearnableDescriptor {
    LearnableDescriptor::new(
        "routing_rules",
        "routing rule",
        "Which desk handles a declaration",
        "A table keyed on the HS chapter",
        "rules",
    )
    .with_field(LessonField::new("chapter", "HS chapter", FieldKind::TEXT))
}

fn with_how(how: &str) -> LearnableDescriptor {
    let mut descriptor = good();
    descriptor.how = how.into();
    descriptor
}

fn with_field(field: LessonField) -> LearnableDescriptor {
    good().with_field(field)
}

struct Case {
    rule: Rule,
    /// The trybuild file, under `tests/compile-fail/ui/`.
    derive_case: &'static str,
    /// The same input, built by hand.
    descriptor: fn() -> LearnableDescriptor,
    /// The path of the violation, or `None` for a valid input.
    violation: Option<&'static str>,
}

const CASES: &[Case] = &[
    Case {
        rule: Rule::HowIsProse,
        derive_case: "learnable/how_placeholder_marker.rs",
        descriptor: || with_how("TODO"),
        violation: Some("how"),
    },
    Case {
        rule: Rule::HowIsProse,
        derive_case: "learnable/how_placeholder_cjk.rs",
        descriptor: || with_how("待定"),
        violation: Some("how"),
    },
    Case {
        rule: Rule::HowIsProse,
        derive_case: "learnable/how_placeholder_cjk.rs",
        descriptor: || with_how("ยังไม่มี"),
        violation: Some("how"),
    },
    Case {
        rule: Rule::HowIsProse,
        derive_case: "learnable/how_placeholder_single_word.rs",
        descriptor: || with_how("Model."),
        violation: Some("how"),
    },
    Case {
        rule: Rule::HowIsProse,
        derive_case: "learnable/how_copy_of_teaches.rs",
        descriptor: || with_how("which desk  handles a declaration."),
        violation: Some("how"),
    },
    Case {
        rule: Rule::HowIsProse,
        derive_case: "pass/prose_in_any_script.rs",
        descriptor: || with_how("按照商品的HS章节查表决定，表中没有的章节交给综合窗口处理"),
        violation: None,
    },
    Case {
        rule: Rule::HowIsProse,
        derive_case: "pass/prose_in_any_script.rs",
        descriptor: || with_how("HS番号の章ごとに表で担当窓口を決め、表にない章は一般窓口に回す"),
        violation: None,
    },
    Case {
        rule: Rule::HowIsProse,
        derive_case: "pass/prose_in_any_script.rs",
        descriptor: || with_how("ใช้ตารางตามบทของพิกัดศุลกากรเพื่อเลือกโต๊ะ"),
        violation: None,
    },
    Case {
        rule: Rule::HowIsProse,
        derive_case: "pass/prose_in_any_script.rs",
        descriptor: || {
            with_how("Placeholder values in the table are replaced by the desk lead each morning")
        },
        violation: None,
    },
    Case {
        rule: Rule::TextsNotBlank,
        derive_case: "learnable/blank_strings.rs",
        descriptor: || {
            let mut descriptor = good();
            descriptor.collection = String::new();
            descriptor
        },
        violation: Some("collection"),
    },
    Case {
        rule: Rule::TextsNotBlank,
        derive_case: "learnable/blank_strings.rs",
        descriptor: || {
            let mut descriptor = good();
            descriptor.entry = " ".into();
            descriptor
        },
        violation: Some("entry"),
    },
    Case {
        rule: Rule::TextsNotBlank,
        derive_case: "learnable/blank_strings.rs",
        descriptor: || {
            let mut descriptor = good();
            descriptor.decided_by = "\t".into();
            descriptor
        },
        violation: Some("decidedBy"),
    },
    Case {
        rule: Rule::SkillsNotEmpty,
        derive_case: "learnable/blank_strings.rs",
        descriptor: || good().with_skills(["route-declaration", ""]),
        violation: Some("skills[1]"),
    },
    Case {
        rule: Rule::SkillsNotEmpty,
        derive_case: "learnable/skills_empty.rs",
        descriptor: || good().with_skills(Vec::<String>::new()),
        violation: Some("skills"),
    },
    Case {
        rule: Rule::LabelNotBlank,
        derive_case: "learnable/empty_label.rs",
        descriptor: || with_field(LessonField::new("desk", "  ", FieldKind::TEXT)),
        violation: Some("lessonFields[1].label"),
    },
    Case {
        rule: Rule::NameAndKindNotBlank,
        derive_case: "learnable/empty_kind.rs",
        descriptor: || with_field(LessonField::new("desk", "Desk", FieldKind::new(" "))),
        violation: Some("lessonFields[1].kind"),
    },
    Case {
        rule: Rule::NameAndKindNotBlank,
        derive_case: "learnable/empty_rename.rs",
        descriptor: || with_field(LessonField::new("", "Desk", FieldKind::TEXT)),
        violation: Some("lessonFields[1].name"),
    },
    Case {
        rule: Rule::FieldNamesUnique,
        derive_case: "learnable/duplicate_lesson_field_name.rs",
        descriptor: || {
            with_field(LessonField::new(
                "chapter",
                "Chapter again",
                FieldKind::TEXT,
            ))
        },
        violation: Some("lessonFields[1].name"),
    },
    Case {
        rule: Rule::ChoiceFieldHasChoices,
        derive_case: "learnable/kind_choice_on_text_type.rs",
        descriptor: || with_field(LessonField::new("desk", "Desk", FieldKind::CHOICE)),
        violation: Some("lessonFields[1].choices"),
    },
    Case {
        rule: Rule::ChoicesOnlyOnChoiceFields,
        derive_case: "learnable/kind_text_on_choice_type.rs",
        descriptor: || {
            with_field(
                LessonField::new("desk", "Desk", FieldKind::TEXT)
                    .with_choices(["general", "dangerous-goods"]),
            )
        },
        violation: Some("lessonFields[1].choices"),
    },
    Case {
        rule: Rule::DefaultIsAChoice,
        derive_case: "learnable/choice_default_not_a_choice.rs",
        descriptor: || {
            with_field(
                LessonField::new("desk", "Desk", FieldKind::CHOICE)
                    .with_choices(["general", "dangerous-goods"])
                    .with_default("urgent"),
            )
        },
        violation: Some("lessonFields[1].default"),
    },
    Case {
        rule: Rule::DefaultIsAChoice,
        derive_case: "pass/routing_rule.rs",
        descriptor: || {
            with_field(
                LessonField::new("desk", "Desk", FieldKind::CHOICE)
                    .with_choices(["general", "dangerous-goods"])
                    .with_default("general"),
            )
        },
        violation: None,
    },
];

/// What the derive does with a trybuild case: its directory says, and the
/// compile-fail suite holds it to that.
fn derive_refuses(case: &str) -> bool {
    let ui = Path::new(env!("CARGO_MANIFEST_DIR")).join("compile-fail/ui");
    assert!(ui.join(case).is_file(), "no trybuild case {case}");
    if case.starts_with("learnable/") {
        assert!(
            ui.join(case).with_extension("stderr").is_file(),
            "{case} has no expected message"
        );
        true
    } else {
        assert!(
            case.starts_with("pass/"),
            "{case} is neither refused nor passed"
        );
        false
    }
}

#[test]
fn the_derive_and_validation_give_the_same_verdict() {
    for case in CASES {
        let descriptor = (case.descriptor)();
        let paths: Vec<String> = descriptor
            .validate()
            .err()
            .map(|violations| violations.iter().map(|v| v.path.clone()).collect())
            .unwrap_or_default();
        assert_eq!(
            derive_refuses(case.derive_case),
            !paths.is_empty(),
            "{:?} ({}): the derive and validate() disagree; validate() says {paths:?}",
            case.rule,
            case.derive_case,
        );
        match case.violation {
            Some(path) => assert_eq!(paths, [path], "{:?} ({})", case.rule, case.derive_case),
            None => assert!(paths.is_empty(), "{:?}: {paths:?}", case.rule),
        }
    }
}

#[test]
fn every_rule_checked_by_both_has_a_case() {
    for rule in Rule::ALL {
        if rule.checked() == Checked::Both {
            assert!(
                CASES.iter().any(|case| case.rule == *rule),
                "{rule:?} ({}) has no case",
                rule.text()
            );
        }
    }
}
