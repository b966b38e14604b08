//! A refused SoC checkpoint leaves the SoC exactly as it was. A real mid-kernel checkpoint
//! is corrupted at every structural boundary of its MessagePack image (every field of the
//! SoC image, of the engine image inside it, and of each component's state inside that):
//! truncated there, and given an invalid marker there. Each refusal must leave the SoC's
//! own checkpoint byte-for-byte the same, and after all of them the SoC must finish with
//! exactly the results and statistics of a run that was never offered a checkpoint.

use gpu_model::config::GpuConfig;
use gpu_model::soc::{Soc, SocError, SocOptions};
use simkit::checkpoint::CheckpointError;
use simkit::time::Tick;
use std::path::Path;

const N: usize = 3000;

fn config() -> GpuConfig {
    // Small caches keep the image small (cache tags are saved whole).
    GpuConfig::preset("mi300x")
        .unwrap()
        .with_overrides_ron(
            r#"{"xcds": 2, "iods": 1, "xcd.active_cus": 2, "iod.mall.size_bytes": 65536, "xcd.l2.size_bytes": 65536}"#,
        )
        .unwrap()
}

/// A SoC running vadd over `N` elements on `threads` threads; returns it and the output.
fn vadd_soc(threads: usize) -> (Soc, u64) {
    let opts = SocOptions {
        threads,
        ..SocOptions::default()
    };
    let mut soc = Soc::new(&config(), &opts).unwrap();
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus/build/gfx942/vadd.hsaco");
    let m = soc.load_code_object(&std::fs::read(p).unwrap()).unwrap();
    let [a, b, c] = [0, 1, 2].map(|_| soc.alloc(4 * N as u64).unwrap());
    let av: Vec<u8> = (0..N).flat_map(|i| (i as f32).to_le_bytes()).collect();
    let bv: Vec<u8> = (0..N)
        .flat_map(|i| (0.25 * i as f32).to_le_bytes())
        .collect();
    soc.write(a, &av).unwrap();
    soc.write(b, &bv).unwrap();
    let args: Vec<Vec<u8>> = [a, b, c]
        .iter()
        .map(|x| x.to_le_bytes().to_vec())
        .chain([(N as u32).to_le_bytes().to_vec()])
        .collect();
    let req = gpu_model::soc::LaunchRequest {
        kernel: "vadd",
        grid: [N as u32, 1, 1],
        workgroup: [64, 1, 1],
        dynamic_lds: 0,
        args: &args,
    };
    soc.submit(m, &req).unwrap();
    (soc, c)
}

/// The results, completions and statistics at the end.
fn finish(soc: &mut Soc, c: u64) -> (Vec<u8>, String, String, Tick) {
    soc.run().unwrap();
    let mut out = vec![0u8; 4 * N];
    soc.read(c, &mut out).unwrap();
    for (i, b) in out.chunks(4).enumerate() {
        let got = f32::from_le_bytes([b[0], b[1], b[2], b[3]]);
        assert_eq!(got, 1.25 * i as f32, "element {i}");
    }
    (
        out,
        format!("{:?}", soc.completions()),
        format!("{:?}", soc.level_stats()),
        soc.now(),
    )
}

/// A MessagePack value's extent and nesting.
struct Span {
    start: usize,
    end: usize,
    depth: u32,
}

/// Header length and what follows it: children to walk (arrays, maps), or a payload of
/// this many bytes (strings, binaries, numbers, extensions). `None` for bytes that are
/// not a marker.
fn header(b: &[u8], at: usize) -> Option<(usize, Result<usize, usize>)> {
    let m = *b.get(at)?;
    let be = |n: usize| -> Option<usize> {
        let s = b.get(at + 1..at + 1 + n)?;
        Some(s.iter().fold(0usize, |v, &x| (v << 8) | usize::from(x)))
    };
    Some(match m {
        0x00..=0x7f | 0xe0..=0xff | 0xc0 | 0xc2 | 0xc3 => (1, Err(0)),
        0x80..=0x8f => (1, Ok(2 * usize::from(m & 0xf))),
        0x90..=0x9f => (1, Ok(usize::from(m & 0xf))),
        0xa0..=0xbf => (1, Err(usize::from(m & 0x1f))),
        0xc4 | 0xd9 => (2, Err(be(1)?)),
        0xc5 | 0xda => (3, Err(be(2)?)),
        0xc6 | 0xdb => (5, Err(be(4)?)),
        0xc7 => (3, Err(be(1)?)),
        0xc8 => (4, Err(be(2)?)),
        0xc9 => (6, Err(be(4)?)),
        0xca => (1, Err(4)),
        0xcb => (1, Err(8)),
        0xcc..=0xcf => (1, Err(1 << (m - 0xcc))),
        0xd0..=0xd3 => (1, Err(1 << (m - 0xd0))),
        0xd4..=0xd8 => (2, Err(1 << (m - 0xd4))),
        0xdc => (3, Ok(be(2)?)),
        0xdd => (5, Ok(be(4)?)),
        0xde => (3, Ok(2 * be(2)?)),
        0xdf => (5, Ok(2 * be(4)?)),
        0xc1 => return None,
    })
}

/// Walks the value at `at`; returns its end. Records the spans of values down to depth 8
/// (at most the first and last three elements of a long array), and walks into binaries
/// that are themselves one MessagePack value (the engine image, component states).
fn walk(b: &[u8], at: usize, depth: u32, out: &mut Vec<Span>) -> Option<usize> {
    let (h, what) = header(b, at)?;
    let end = match what {
        Err(payload) => {
            let end = at.checked_add(h + payload).filter(|&e| e <= b.len())?;
            if matches!(b[at], 0xc4..=0xc6) && payload > 0 {
                let mut inner = Vec::new();
                if walk(b, at + h, depth + 1, &mut inner) == Some(end) {
                    out.extend(inner);
                }
            }
            end
        }
        Ok(n) => {
            let mut pos = at + h;
            for i in 0..n {
                let keep = depth < 8 && (i < 3 || i + 3 >= n);
                let mut inner = Vec::new();
                pos = walk(b, pos, depth + 1, &mut inner)?;
                if keep {
                    out.extend(inner);
                }
            }
            pos
        }
    };
    out.push(Span {
        start: at,
        end,
        depth,
    });
    Some(end)
}

#[test]
fn corrupt_checkpoints_are_refused_without_changing_the_soc() {
    let (mut whole, c) = vadd_soc(1);
    let want = finish(&mut whole, c);
    let half = Tick(want.3 .0 / 2);
    let (mut source, _) = vadd_soc(2);
    source.run_until(half).unwrap();
    let good = source.checkpoint().unwrap();
    let mut spans = Vec::new();
    assert_eq!(walk(&good, 0, 0, &mut spans), Some(good.len()));
    let nested = spans.iter().filter(|s| s.depth >= 3).count();
    assert!(spans.len() > 100 && nested > 20, "{} spans", spans.len());
    for threads in [1, 2] {
        // The SoC offered the corrupt checkpoints is itself a quarter into the run.
        let (mut soc, c) = vadd_soc(threads);
        soc.run_until(Tick(want.3 .0 / 4)).unwrap();
        let before = soc.checkpoint().unwrap();
        let (mut refused, mut accepted, mut component) = (0, 0, 0);
        let mut offer = |soc: &mut Soc, bad: &[u8]| match soc.restore(bad) {
            Err(e) => {
                refused += 1;
                if let SocError::Checkpoint(CheckpointError::Component { .. }) = e {
                    component += 1;
                }
                let after = soc.checkpoint().unwrap();
                assert!(
                    after == before,
                    "{threads} thread(s): refused ({e}), changed"
                );
            }
            // A byte inside a number can make another valid checkpoint: put the state back.
            Ok(()) => {
                accepted += 1;
                soc.restore(&before).unwrap();
            }
        };
        for s in &spans {
            offer(&mut soc, &good[..s.start]);
            offer(&mut soc, &good[..s.end.saturating_sub(1)]);
            let mut bad = good.clone();
            bad[s.start] = 0xc1; // never a valid marker
            offer(&mut soc, &bad);
            if s.end - s.start > 2 {
                let mut bad = good.clone();
                bad[(s.start + s.end) / 2] ^= 0xff;
                offer(&mut soc, &bad);
            }
        }
        eprintln!(
            "{threads} thread(s): {} spans, {refused} refused ({component} by a component \
             after others took theirs), {accepted} accepted",
            spans.len()
        );
        assert!(refused > 3 * spans.len() / 2, "{refused} refused");
        assert!(component > 10, "only {component} component refusals");
        let got = finish(&mut soc, c);
        assert!(got == want, "{threads} thread(s): the run ends differently");
        // And the good checkpoint still restores and finishes the same way.
        soc.restore(&good).unwrap();
        assert!(finish(&mut soc, c) == want);
    }
}
