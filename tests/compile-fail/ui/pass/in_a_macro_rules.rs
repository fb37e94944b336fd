//! A derive inside a `macro_rules!`, its `migrate` and `validate` given by
//! the macro's caller: the derive's own bindings resolve whatever hygiene
//! the paths carry.

use learnables::{FieldErrors, Learnable, LessonValue};
use serde_json::{Map, Value, json};

macro_rules! policy {
    ($name:ident, $migrate:literal, $validate:path) => {
        #[derive(Learnable, Debug)]
        #[learnable(
            collection = "refund_policies",
            entry = "shop",
            teaches = "Up to how much a shop refunds",
            how = "A limit per shop, kept by the finance team",
            decided_by = "rules",
            describes = "{entry}: up to {limit} EUR",
            migrate = $migrate,
            validate = $validate
        )]
        pub struct $name {
            /// Limit in EUR
            pub limit: u32,
        }
    };
}

fn whole(mut old: Map<String, Value>) -> Result<Map<String, Value>, String> {
    let limit = old.remove("amount").ok_or("no amount")?;
    old.insert("limit".into(), limit);
    Ok(old)
}

fn positive(policy: &Policy) -> Result<(), FieldErrors> {
    if policy.limit == 0 {
        return Err(FieldErrors::new().field(Policy::FIELDS.limit, "must be above 0"));
    }
    Ok(())
}

policy!(Policy, "whole", positive);

fn main() {
    let stored = LessonValue::try_from(json!({"amount": "20"})).unwrap();
    assert_eq!(Policy::from_stored_value(&stored).unwrap().limit, 20);
    let zero = LessonValue::try_from(json!({"limit": "0"})).unwrap();
    assert!(Policy::from_lesson_value(&zero).is_err());
}
