//! The `br` coding: `brotli-decompressor`'s stream decoder over plain
//! heap allocations.

use std::io;

use brotli_decompressor::{
    Allocator, BrotliDecompressStream, BrotliResult, BrotliState, SliceWrapper, SliceWrapperMut,
};

use super::{OUTPUT_STEP, invalid};

/// The brotli decoder's allocations: plain zeroed heap slices (what the
/// crate's `std` feature gives, through one more crate).
#[derive(Default)]
pub(crate) struct Heap;

/// One allocation of [`Heap`].
pub(crate) struct Cells<T>(Box<[T]>);

impl<T> Default for Cells<T> {
    fn default() -> Self {
        Cells(Box::default())
    }
}

impl<T> SliceWrapper<T> for Cells<T> {
    fn slice(&self) -> &[T] {
        &self.0
    }
}

impl<T> SliceWrapperMut<T> for Cells<T> {
    fn slice_mut(&mut self) -> &mut [T] {
        &mut self.0
    }
}

impl<T: Clone + Default> Allocator<T> for Heap {
    type AllocatedMemory = Cells<T>;

    fn alloc_cell(&mut self, len: usize) -> Cells<T> {
        Cells(vec![T::default(); len].into_boxed_slice())
    }

    fn free_cell(&mut self, _cells: Cells<T>) {}
}

/// A brotli decoder (RFC 7932); its window is at most 16 MiB (the large
/// windows of brotli's extension are off).
pub(crate) struct Brotli {
    state: BrotliState<Heap, Heap, Heap>,
    room: Vec<u8>,
    /// The bytes decoded so far, which the decoder counts.
    total: usize,
    ended: bool,
}

impl Brotli {
    pub(super) fn new() -> Brotli {
        Brotli {
            state: BrotliState::new(Heap, Heap, Heap),
            room: vec![0; OUTPUT_STEP],
            total: 0,
            ended: false,
        }
    }

    pub(super) fn write(&mut self, input: &[u8]) -> io::Result<Vec<u8>> {
        let mut out = Vec::new();
        let mut read = 0;
        while !self.ended {
            let mut available_in = input.len() - read;
            let mut written = 0;
            let mut available_out = OUTPUT_STEP;
            let result = BrotliDecompressStream(
                &mut available_in,
                &mut read,
                input,
                &mut available_out,
                &mut written,
                &mut self.room,
                &mut self.total,
                &mut self.state,
            );
            out.extend_from_slice(&self.room[..written]);
            match result {
                BrotliResult::ResultSuccess => self.ended = true,
                BrotliResult::NeedsMoreOutput => {}
                BrotliResult::NeedsMoreInput => return Ok(out),
                BrotliResult::ResultFailure => {
                    return Err(invalid(format!(
                        "invalid brotli data ({:?})",
                        self.state.error_code
                    )));
                }
            }
        }
        if read < input.len() {
            return Err(invalid(format!(
                "{} bytes follow the end of the brotli stream",
                input.len() - read
            )));
        }
        Ok(out)
    }

    pub(super) fn finish(mut self) -> io::Result<Vec<u8>> {
        let out = self.write(&[])?;
        if !self.ended {
            return Err(invalid(
                "truncated brotli stream: the body ends before its last meta-block".to_owned(),
            ));
        }
        Ok(out)
    }
}
