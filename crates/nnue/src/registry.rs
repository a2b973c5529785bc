//! The networks the engine plays with: the embedded ones
//! (`crates/nnue/nets/<variant>.nnue` at build time) unless a network was
//! installed for the game at run time ([`install`]).

use crate::{Network, NetworkError};
use std::sync::{Arc, Mutex, OnceLock};

mod generated {
    include!(concat!(env!("OUT_DIR"), "/embedded.rs"));
}

/// The names of the games with an embedded network.
pub fn embedded_variants() -> Vec<&'static str> {
    generated::EMBEDDED.iter().map(|(n, _)| *n).collect()
}

/// The embedded network of `variant`, parsed once; `None` without one.
/// An embedded file that does not parse is a build defect: it reads as
/// `Some(Err(..))`.
pub fn embedded(variant: &str) -> Option<Result<Arc<Network>, String>> {
    type Parsed = Vec<(&'static str, Result<Arc<Network>, String>)>;
    static PARSED: OnceLock<Parsed> = OnceLock::new();
    let parsed = PARSED.get_or_init(|| {
        generated::EMBEDDED
            .iter()
            .map(|(name, bytes)| {
                let net = Network::from_bytes(bytes)
                    .and_then(|n| {
                        if n.variant() == *name {
                            Ok(n)
                        } else {
                            Err(NetworkError::VariantMismatch { expected: name.to_string(), found: n.variant().into() })
                        }
                    })
                    .map(Arc::new)
                    .map_err(|e| e.to_string());
                (*name, net)
            })
            .collect()
    });
    parsed.iter().find(|(n, _)| *n == variant).map(|(_, r)| r.clone())
}

static INSTALLED: Mutex<Vec<Arc<Network>>> = Mutex::new(Vec::new());

/// Makes `net` the network of its game (named in the file) for the rest of
/// the process, replacing the embedded one or one installed before.
pub fn install(net: Network) {
    let mut list = INSTALLED.lock().unwrap_or_else(|e| e.into_inner());
    list.retain(|n| n.variant() != net.variant());
    list.push(Arc::new(net));
}

/// Removes the network installed for `variant` (the embedded one, if any,
/// applies again).
pub fn uninstall(variant: &str) {
    INSTALLED.lock().unwrap_or_else(|e| e.into_inner()).retain(|n| n.variant() != variant);
}

/// The network `variant` plays with: the installed one, else the embedded
/// one (a corrupt embedded file counts as none).
pub fn network_for(variant: &str) -> Option<Arc<Network>> {
    let installed =
        INSTALLED.lock().unwrap_or_else(|e| e.into_inner()).iter().find(|n| n.variant() == variant).cloned();
    installed.or_else(|| embedded(variant).and_then(Result::ok))
}

/// Reads a network file and installs it for the compiled game its header
/// names, after checking it has that game's inputs. Returns the game.
pub fn install_file(path: &std::path::Path) -> Result<menagerie_variants::VariantId, NetworkError> {
    let net = Network::load(path)?;
    let id = menagerie_variants::VariantId::from_name_including_tests(net.variant()).ok_or_else(|| {
        NetworkError::VariantMismatch { expected: "a compiled game".into(), found: net.variant().to_string() }
    })?;
    net.check(id.name(), crate::features::feature_count_of(id))?;
    install(net);
    Ok(id)
}
