//! Compiles `proto/menagerie/v1/analysis.proto` with protox (pure Rust, no
//! system `protoc`) into prost messages and tonic client/server stubs, and
//! writes the encoded descriptor set for server reflection.

use protox::prost::Message;
use std::path::PathBuf;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let root = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR")?).join("../../proto");
    let proto = root.join("menagerie/v1/analysis.proto");
    println!("cargo:rerun-if-changed={}", proto.display());
    let fds = protox::compile([&proto], [&root])?;
    let out = PathBuf::from(std::env::var("OUT_DIR")?);
    std::fs::write(out.join("menagerie_v1_descriptor.bin"), fds.encode_to_vec())?;
    tonic_prost_build::configure().build_client(true).build_server(true).compile_fds(fds)?;
    Ok(())
}
