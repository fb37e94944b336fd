//! Header values -> activation -> the echoed header.
#![no_main]

use learnables::EXTENSION_URI;
use learnables::a2a::Activation;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let activation = Activation::from_header_values(text.split('\n'));
    let uris: Vec<&str> = activation.uris().collect();
    assert!(uris.len() <= 64, "at most 64 URIs are activated");
    for (index, uri) in uris.iter().enumerate() {
        assert!(!uri.is_empty(), "no empty URI");
        assert_eq!(uri.trim(), *uri, "URIs are trimmed");
        assert!(!uri.contains(','), "URIs are split on commas");
        assert!(text.contains(uri), "every URI was in the input");
        assert!(!uris[..index].contains(uri), "no URI twice");
    }
    assert_eq!(activation.learnables(), uris.contains(&EXTENSION_URI));
    match activation.echo(&[EXTENSION_URI]) {
        Some(echoed) => {
            assert!(
                text.contains(EXTENSION_URI),
                "the echoed URI was in the input"
            );
            for uri in echoed.split(", ") {
                assert_eq!(uri, EXTENSION_URI, "only supported URIs are echoed");
                assert!(activation.includes(uri));
            }
        }
        None => assert!(!activation.learnables()),
    }
});
