//! The start of a `metadata` or `extensions` member held back until
//! something in it is kept (it is sent) or it ends emptied by the scrubber
//! (it is dropped with it, as a member keyed by the URI is).

use super::tokens::{Frame, Kind, Mode};
use super::{JsonFault, JsonScrub, Sink};

impl JsonScrub {
    /// Everything held back, in order: the starts of the members still
    /// undecided, then the rest.
    pub(super) fn take_all_held(&mut self) -> Vec<u8> {
        let mut all = Vec::new();
        self.drain_pending(|bytes| all.extend_from_slice(bytes));
        all.extend_from_slice(&self.held);
        self.held.clear();
        all
    }

    /// The starts of the members still undecided, outermost first, each
    /// without its comma when nothing before it in its container was kept
    /// (as [`JsonScrub::release`] does); they count as kept from now on.
    pub(super) fn drain_pending(&mut self, mut out: impl FnMut(&[u8])) {
        if self.pending_frames == 0 {
            return;
        }
        // Each start ends where the next one begins.
        let depth = self.stack.len();
        let pending_at = |stack: &[Frame], from: usize| {
            (from..depth).find(|&index| stack[index].pending.is_some())
        };
        let mut current = pending_at(&self.stack, self.lowest_pending);
        while let Some(index) = current {
            let start = self.stack[index].pending.take().unwrap_or_default();
            current = pending_at(&self.stack, index + 1);
            let end = current
                .and_then(|next| self.stack[next].pending)
                .unwrap_or(self.pending_bytes.len());
            let keep_comma = match index.checked_sub(1) {
                Some(parent) => std::mem::replace(&mut self.stack[parent].kept, true),
                None => true,
            };
            let bytes = &self.pending_bytes[start..end];
            match bytes.split_first() {
                Some((b',', rest)) if !keep_comma => out(rest),
                _ => out(bytes),
            }
        }
        self.pending_frames = 0;
        self.pending_bytes.clear();
    }

    /// The member held from its start up to its opening bracket at `at`
    /// becomes the pending start of the frame about to be pushed: what
    /// follows is held after it.
    pub(super) fn pend(&mut self, input: &[u8], at: usize, sink: &mut impl Sink) -> usize {
        if self.held.is_empty() {
            self.pass(self.hold_at, sink);
        }
        let start = self.pending_bytes.len();
        self.pending_bytes.extend_from_slice(&self.held);
        self.held.clear();
        self.pending_bytes
            .extend_from_slice(&input[self.hold_at..=at]);
        if self.pending_frames == 0 {
            self.lowest_pending = self.stack.len();
        }
        self.pending_frames += 1;
        self.hold_at = at + 1;
        self.run = at + 1;
        start
    }

    pub(super) fn close(
        &mut self,
        kind: Kind,
        at: usize,
        input: &[u8],
        sink: &mut impl Sink,
    ) -> Result<(), JsonFault> {
        let Some(frame) = self.stack.last() else {
            return Err(JsonFault::Syntax);
        };
        if frame.kind != kind {
            return Err(JsonFault::Syntax);
        }
        if frame.pending.is_some() && !frame.removed {
            // Sent empty: kept as it came.
            self.release(input, sink);
        }
        if self.mode == Mode::Skip && self.stack.len() == self.skip_depth {
            self.mode = Mode::Pass;
            self.run = at;
        }
        if let Some(Frame {
            pending: Some(start),
            ..
        }) = self.stack.pop()
        {
            // Emptied by the scrubber: removed whole, as a member keyed by
            // the URI is, up to the next comma or the end of its container.
            self.pending_frames -= 1;
            self.pending_bytes.truncate(start);
            self.held.clear();
            self.mode = Mode::Skip;
            self.skip_depth = self.stack.len();
            if let Some(parent) = self.stack.last_mut() {
                parent.removed = true;
            }
        }
        self.value_done();
        Ok(())
    }
}
