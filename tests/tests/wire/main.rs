//! The spec's JSON, parsing and the derive's output: conformance to the spec's schema, round trips, descriptors, lesson parsing, the text rules, cards and teach blocks.

mod card_and_teach_blocks;
mod conformance;
mod conformance_on_the_wire;
mod descriptor;
mod descriptor_allocations;
mod lesson_parsing;
mod lists_and_checks;
mod rename_all;
mod round_trip_properties;
mod rules;
mod what_a_person_types;
mod wire_round_trip;
