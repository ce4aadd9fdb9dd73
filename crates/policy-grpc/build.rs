//! Generates the nauthz service's Rust code from proto/nauthz.proto with
//! protox, a protobuf compiler written in Rust: the build needs no `protoc`
//! installed and no generated file is committed.

fn main() -> Result<(), Box<dyn std::error::Error>> {
    println!("cargo:rerun-if-changed=proto/nauthz.proto");
    let descriptors = protox::compile(["nauthz.proto"], ["proto"])?;
    tonic_prost_build::configure().compile_fds(descriptors)?;
    Ok(())
}
