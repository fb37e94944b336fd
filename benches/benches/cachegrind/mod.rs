//! Counting instead of timing: a bench runs itself again under Valgrind's
//! cachegrind and reads the instructions and level-1 data misses it
//! printed. Unlike a time, these do not move with the machine or its
//! neighbours.

use std::process::Command;

/// What one run under cachegrind counted.
pub struct Counts {
    pub instructions: f64,
    pub l1_data_misses: f64,
}

/// This bench run again under cachegrind with `args`; `None` when
/// valgrind did not run or printed no counts.
pub fn under_cachegrind(args: &[&str]) -> Option<Counts> {
    let this = std::env::current_exe().ok()?;
    let output = Command::new("valgrind")
        .args([
            "--tool=cachegrind",
            "--cache-sim=yes",
            "--cachegrind-out-file=/dev/null",
        ])
        .arg(this)
        .args(args)
        .output()
        .ok()?;
    let summary = String::from_utf8_lossy(&output.stderr);
    Some(Counts {
        instructions: counted(&summary, "I refs:")?,
        l1_data_misses: counted(&summary, "D1 misses:")?,
    })
}

/// The counts of one operation: a run doing it `times` times less a run
/// doing it none, divided by `times`. `args(n)` gives the arguments of a
/// run doing it `n` times.
pub fn per_operation(args: impl Fn(u64) -> Vec<String>, times: u64) -> Option<Counts> {
    let run = |n: u64| {
        let args = args(n);
        under_cachegrind(&args.iter().map(String::as_str).collect::<Vec<_>>())
    };
    let none = run(0)?;
    let many = run(times)?;
    Some(Counts {
        instructions: (many.instructions - none.instructions) / times as f64,
        l1_data_misses: (many.l1_data_misses - none.l1_data_misses) / times as f64,
    })
}

/// The total cachegrind prints after `label`, whatever the spacing
/// (`==1== I   refs:      1,234`).
fn counted(summary: &str, label: &str) -> Option<f64> {
    let label: Vec<&str> = label.split_whitespace().collect();
    summary.lines().find_map(|line| {
        let words: Vec<&str> = line.split_whitespace().collect();
        let at = words
            .windows(label.len())
            .position(|window| window == label.as_slice())?;
        let digits: String = words
            .get(at + label.len())?
            .chars()
            .filter(char::is_ascii_digit)
            .collect();
        digits.parse().ok()
    })
}
