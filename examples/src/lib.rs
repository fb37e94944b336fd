//! Examples of learnables.
