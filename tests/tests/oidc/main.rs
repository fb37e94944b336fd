//! Teachers a real OpenID provider vouches for (`oidc-provider`, started on
//! 127.0.0.1): people signed in by the device authorization grant teach and
//! approve over HTTP; service, expired, other-audience and unknown-key
//! tokens are refused each with its reason; a key rotation is followed.

mod agent_with_provider;
