//! The body of a gRPC answer to a client that did not activate an
//! extension: its length-prefixed messages read one at a time (never more
//! than one message's size limit held), each scrubbed by its method's
//! [`MessageScrubber`] and sent on with a new prefix; a message that cannot
//! be read ends the answer with a gRPC status instead, nothing of it sent.

use std::pin::Pin;
use std::task::{Context, Poll, ready};

use bytes::{Buf, BufMut, Bytes, BytesMut};
use http::HeaderMap;
use http_body::{Body, Frame, SizeHint};
use tonic::{Code, Status};

use super::scrub::MessageScrubber;

/// The length prefix of a gRPC message: a compressed flag, then its length
/// (big-endian `u32`).
const PREFIX: usize = 5;

/// What the answer's body has come to.
enum State {
    /// Reading the host's messages.
    Reading,
    /// Refused: the trailers carrying the status, still to send.
    Refusing(HeaderMap),
    /// Ended.
    Done,
}

pub(crate) struct ScrubbedBody<B> {
    inner: B,
    scrubber: MessageScrubber,
    max_message: usize,
    buffer: BytesMut,
    state: State,
}

impl<B> ScrubbedBody<B> {
    pub(crate) fn new(inner: B, scrubber: MessageScrubber, max_message: usize) -> ScrubbedBody<B> {
        ScrubbedBody {
            inner,
            scrubber,
            max_message,
            buffer: BytesMut::new(),
            state: State::Reading,
        }
    }

    /// The next whole message of the buffer, scrubbed and prefixed; `None`
    /// while it is not all there.
    fn next_message(&mut self) -> Result<Option<Bytes>, Status> {
        if self.buffer.len() < PREFIX {
            return Ok(None);
        }
        let compressed = self.buffer[0];
        let length = u32::from_be_bytes([
            self.buffer[1],
            self.buffer[2],
            self.buffer[3],
            self.buffer[4],
        ]) as usize;
        if compressed != 0 {
            return Err(Status::new(
                Code::Internal,
                "the agent compressed a message though the extension's layer asked it for none \
                 (`grpc-accept-encoding: identity`); a compressed message is not decoded to \
                 remove the extension's metadata",
            ));
        }
        if length > self.max_message {
            return Err(Status::new(
                Code::ResourceExhausted,
                format!(
                    "a message of the answer is {length} bytes, over the limit of {} bytes the \
                     extension's layer reads",
                    self.max_message
                ),
            ));
        }
        if self.buffer.len() < PREFIX + length {
            return Ok(None);
        }
        self.buffer.advance(PREFIX);
        let message = self.buffer.split_to(length);
        let scrubbed = self
            .scrubber
            .scrub(&message)
            .map_err(|refused| Status::new(Code::Internal, refused.to_string()))?;
        let mut framed = BytesMut::with_capacity(PREFIX + scrubbed.len());
        framed.put_u8(0);
        // Never more than the message read, whose length fitted a `u32`.
        framed.put_u32(scrubbed.len() as u32);
        framed.extend_from_slice(&scrubbed);
        Ok(Some(framed.freeze()))
    }

    fn refuse(&mut self, status: &Status) {
        tracing::warn!(
            code = ?status.code(),
            reason = %crate::text::shown(status.message()),
            "a gRPC answer to a client that did not activate the extension was refused"
        );
        self.buffer = BytesMut::new();
        let mut trailers = HeaderMap::new();
        // Cannot fail: the status's message is ours, and tonic
        // percent-encodes it.
        let _ = status.add_header(&mut trailers);
        self.state = State::Refusing(trailers);
    }
}

impl<B> Body for ScrubbedBody<B>
where
    B: Body<Data = Bytes> + Unpin,
    B::Error: Into<super::BoxError>,
{
    type Data = Bytes;
    type Error = super::BoxError;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
        let this = &mut *self;
        loop {
            match std::mem::replace(&mut this.state, State::Done) {
                State::Done => return Poll::Ready(None),
                State::Refusing(trailers) => {
                    return Poll::Ready(Some(Ok(Frame::trailers(trailers))));
                }
                State::Reading => this.state = State::Reading,
            }
            match this.next_message() {
                Ok(Some(message)) => return Poll::Ready(Some(Ok(Frame::data(message)))),
                Ok(None) => {}
                Err(status) => {
                    this.refuse(&status);
                    continue;
                }
            }
            match ready!(Pin::new(&mut this.inner).poll_frame(cx)) {
                None if this.buffer.is_empty() => {
                    this.state = State::Done;
                    return Poll::Ready(None);
                }
                None => this.refuse(&cut_short()),
                Some(Err(error)) => {
                    this.state = State::Done;
                    return Poll::Ready(Some(Err(error.into())));
                }
                Some(Ok(frame)) => match frame.into_data() {
                    Ok(data) => this.buffer.extend_from_slice(&data),
                    Err(frame) if this.buffer.is_empty() => {
                        // The trailers (the host's status) end the answer.
                        this.state = State::Done;
                        return Poll::Ready(Some(Ok(frame)));
                    }
                    Err(_) => this.refuse(&cut_short()),
                },
            }
        }
    }

    fn is_end_stream(&self) -> bool {
        match self.state {
            State::Done => true,
            State::Refusing(_) => false,
            State::Reading => self.buffer.is_empty() && self.inner.is_end_stream(),
        }
    }

    fn size_hint(&self) -> SizeHint {
        // Scrubbing changes the length.
        SizeHint::default()
    }
}

fn cut_short() -> Status {
    Status::new(Code::Internal, "the agent's answer ended inside a message")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::TEST_URI;

    /// A body of the given frames.
    struct Frames(std::collections::VecDeque<Frame<Bytes>>);

    impl Body for Frames {
        type Data = Bytes;
        type Error = std::convert::Infallible;
        fn poll_frame(
            mut self: Pin<&mut Self>,
            _: &mut Context<'_>,
        ) -> Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
            Poll::Ready(self.0.pop_front().map(Ok))
        }
    }

    fn run(frames: Vec<Frame<Bytes>>, path: &str) -> Vec<Frame<Bytes>> {
        let mut body = ScrubbedBody::new(
            Frames(frames.into()),
            MessageScrubber::new(TEST_URI, path),
            64,
        );
        let waker = std::task::Waker::noop();
        let mut cx = Context::from_waker(waker);
        let mut out = Vec::new();
        while let Poll::Ready(Some(frame)) = Pin::new(&mut body).poll_frame(&mut cx) {
            out.push(frame.unwrap());
        }
        out
    }

    fn status_of(frame: &Frame<Bytes>) -> Option<&str> {
        frame.trailers_ref()?.get("grpc-status")?.to_str().ok()
    }

    #[test]
    fn messages_split_across_frames_are_read_whole() {
        let framed = b"\0\0\0\0\x03abc\0\0\0\0\x01z";
        let frames = framed
            .iter()
            .map(|byte| Frame::data(Bytes::copy_from_slice(&[*byte])))
            .collect();
        let out = run(frames, "/other.Service/Call");
        let data: Vec<u8> = out
            .iter()
            .filter_map(Frame::data_ref)
            .flat_map(|data| data.to_vec())
            .collect();
        assert_eq!(data, framed);
    }

    #[test]
    fn compressed_over_size_and_cut_short_end_with_a_status() {
        for (bytes, code) in [
            (&b"\x01\0\0\0\x01a"[..], "13"),
            (&b"\0\0\0\0\x41"[..], "8"),
            (&b"\0\0\0\0\x09abc"[..], "13"),
        ] {
            let out = run(vec![Frame::data(Bytes::copy_from_slice(bytes))], "/x.Y/Z");
            assert_eq!(out.len(), 1, "{bytes:?}");
            assert_eq!(status_of(&out[0]), Some(code), "{bytes:?}");
        }
    }

    #[test]
    fn the_hosts_trailers_end_the_answer() {
        let mut trailers = HeaderMap::new();
        trailers.insert("grpc-status", "0".parse().unwrap());
        let out = run(
            vec![
                Frame::data(Bytes::from_static(b"\0\0\0\0\0")),
                Frame::trailers(trailers),
            ],
            "/lf.a2a.v1.A2AService/GetTask",
        );
        assert_eq!(out.len(), 2);
        assert_eq!(status_of(&out[1]), Some("0"));
    }
}
