//! The provider's signing keys, as the agent checks tokens with them: a
//! JWKS read into `jsonwebtoken`'s decoding keys, each with the one
//! algorithm it verifies (RS256, ES256 or EdDSA; any other key is left out,
//! so a token can never name an HMAC "key" made of a public one).

use std::collections::HashMap;

use jsonwebtoken::jwk::{AlgorithmParameters, EllipticCurve, JwkSet, KeyAlgorithm, PublicKeyUse};
use jsonwebtoken::{Algorithm, DecodingKey};

/// The algorithms a token may be signed with.
pub(super) const ACCEPTED: [Algorithm; 3] = [Algorithm::RS256, Algorithm::ES256, Algorithm::EdDSA];

/// One key and the algorithm it verifies.
pub(super) struct Key {
    pub(super) key: DecodingKey,
    pub(super) algorithm: Algorithm,
}

/// The keys of one fetch of the JWKS, by `kid`; those without one apart
/// (a token without a `kid` is checked only when there is exactly one).
#[derive(Default)]
pub(super) struct Keys {
    by_kid: HashMap<String, Key>,
    unnamed: Vec<Key>,
}

impl Keys {
    /// The signing keys of `set` that verify an accepted algorithm.
    pub(super) fn of(set: &JwkSet) -> Keys {
        let mut keys = Keys::default();
        for jwk in &set.keys {
            if matches!(jwk.common.public_key_use, Some(ref used) if *used != PublicKeyUse::Signature)
            {
                continue;
            }
            let Some(algorithm) = algorithm_of(&jwk.algorithm, jwk.common.key_algorithm) else {
                continue;
            };
            let Ok(key) = DecodingKey::from_jwk(jwk) else {
                continue;
            };
            let key = Key { key, algorithm };
            match &jwk.common.key_id {
                Some(kid) => {
                    keys.by_kid.insert(kid.clone(), key);
                }
                None => keys.unnamed.push(key),
            }
        }
        keys
    }

    /// The key a token's header names (`kid`), or the only unnamed key
    /// for a token that names none.
    pub(super) fn find(&self, kid: Option<&str>) -> Option<&Key> {
        match kid {
            Some(kid) => self.by_kid.get(kid),
            None if self.unnamed.len() == 1 && self.by_kid.is_empty() => self.unnamed.first(),
            None => None,
        }
    }

    /// How many keys there are.
    pub(super) fn len(&self) -> usize {
        self.by_kid.len() + self.unnamed.len()
    }
}

/// The accepted algorithm a key verifies: its `alg` if it says one (and
/// that fits its type), else its type's (RSA: RS256, P-256: ES256,
/// Ed25519: EdDSA).
fn algorithm_of(parameters: &AlgorithmParameters, said: Option<KeyAlgorithm>) -> Option<Algorithm> {
    let by_type = match parameters {
        AlgorithmParameters::RSA(_) => Algorithm::RS256,
        AlgorithmParameters::EllipticCurve(ec) if ec.curve == EllipticCurve::P256 => {
            Algorithm::ES256
        }
        AlgorithmParameters::OctetKeyPair(okp) if okp.curve == EllipticCurve::Ed25519 => {
            Algorithm::EdDSA
        }
        _ => return None,
    };
    match said {
        None => Some(by_type),
        Some(KeyAlgorithm::RS256) if by_type == Algorithm::RS256 => Some(by_type),
        Some(KeyAlgorithm::ES256) if by_type == Algorithm::ES256 => Some(by_type),
        Some(KeyAlgorithm::EdDSA) if by_type == Algorithm::EdDSA => Some(by_type),
        Some(_) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_signing_keys_of_the_accepted_algorithms_are_kept() {
        let set: JwkSet = serde_json::from_value(serde_json::json!({"keys": [
            {"kty": "oct", "kid": "hmac", "k": "c2VjcmV0"},
            {"kty": "OKP", "crv": "Ed25519", "kid": "ed", "x": "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"},
            {"kty": "OKP", "crv": "Ed25519", "kid": "enc", "use": "enc", "x": "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"},
            {"kty": "OKP", "crv": "Ed25519", "kid": "mislabelled", "alg": "RS256", "x": "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"}
        ]}))
        .unwrap();
        let keys = Keys::of(&set);
        assert_eq!(keys.len(), 1);
        assert_eq!(keys.find(Some("ed")).unwrap().algorithm, Algorithm::EdDSA);
        assert!(keys.find(Some("hmac")).is_none());
        assert!(keys.find(None).is_none());
    }
}
