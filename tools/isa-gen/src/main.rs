//! isa-gen: generates the opcode tables by probing LLVM 22.
fn main() {}
