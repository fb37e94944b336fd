//! The teacher's identity method ([`TEACHER_METHOD`](crate::TEACHER_METHOD)):
//! whom the bearer token names, so that a client can fill `taughtBy`
//! before it teaches.

use serde::Serialize;

use super::super::teachers::Principal;

/// The answer of [`TEACHER_METHOD`](crate::TEACHER_METHOD).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct TeacherIdentity {
    teacher: String,
}

impl TeacherIdentity {
    /// The identity of the authenticated `principal`.
    pub(in crate::a2a) fn of(principal: &Principal) -> TeacherIdentity {
        TeacherIdentity {
            teacher: principal.id().to_owned(),
        }
    }
}
