//! Clients nobody here wrote: the official A2A SDKs for Python and JavaScript, and the official A2A TCK.

mod sdk_interop;
mod tck_comparison;
mod tck_grpc;
mod tck_second_extension;
