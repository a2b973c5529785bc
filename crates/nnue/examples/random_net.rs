//! Writes an untrained (random) network for a compiled game:
//! `cargo run -p menagerie-nnue --example random_net -- <variant> <out.nnue> [hidden] [seed]`
//! (for benchmarks of the network's cost and tests of loading).

use menagerie_nnue::{FloatNetwork, Network, feature_count_of};
use menagerie_variants::VariantId;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (Some(variant), Some(out)) = (args.first(), args.get(1)) else {
        eprintln!("usage: random_net <variant> <out.nnue> [hidden=128] [seed=1]");
        std::process::exit(2);
    };
    let Some(id) = VariantId::from_name_including_tests(variant) else {
        eprintln!("unknown variant '{variant}'");
        std::process::exit(2);
    };
    let hidden = args.get(2).and_then(|h| h.parse().ok()).unwrap_or(128);
    let seed = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(1);
    let net = FloatNetwork::random(id.name(), feature_count_of(id), hidden, seed);
    if let Err(e) = std::fs::write(out, Network::from_float(&net).to_bytes()) {
        eprintln!("cannot write {out}: {e}");
        std::process::exit(1);
    }
}
