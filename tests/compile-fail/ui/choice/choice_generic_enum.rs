//! A choice enum cannot be generic.

use std::marker::PhantomData;

use learnables::Choice;

#[derive(Choice)]
pub enum Desk<T> {
    General,
    Other(PhantomData<T>),
}

fn main() {}
