//! Translates every code object given on the command line to gfx942 (gfx1201 with
//! `DBT_HOST=gfx1201`) and prints the report, writing each translation next to its input as `<input>.host.hsaco` (a
//! development aid; `gfxsim dbt translate` is the user-facing command).
fn main() {
    let host = match std::env::var("DBT_HOST").as_deref() {
        Ok("gfx1201") => gpu_model::Target::Gfx1201,
        _ => gpu_model::Target::Gfx942,
    };
    for p in std::env::args().skip(1) {
        let b = std::fs::read(&p).unwrap();
        let t = dbt::translate(&b, host);
        println!("{p}: translated={} text={:?}", t.translated, t.text_bytes);
        for k in &t.kernels {
            println!(
                "  {} {:?} {}->{} exp={} v={:?}",
                k.name, k.status, k.code_before, k.code_after, k.expanded, k.vgprs
            );
        }
        if t.translated {
            std::fs::write(format!("{p}.host.hsaco"), &t.object).unwrap();
        }
        for d in &t.diagnostics {
            println!("  error: {d}");
        }
    }
}
