//! Element types and buffer initializers (the corpus's generators, bit for bit).

use super::{Init, ScenarioError};
use serde::{Deserialize, Serialize};
use std::path::Path;

/// Element type of a buffer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[allow(missing_docs)] // the names say it
pub enum ElemType {
    U8,
    I8,
    U16,
    I16,
    F16,
    U32,
    I32,
    F32,
    U64,
    I64,
    F64,
}

impl ElemType {
    /// Bytes per element.
    pub fn size(self) -> usize {
        match self {
            ElemType::U8 | ElemType::I8 => 1,
            ElemType::U16 | ElemType::I16 | ElemType::F16 => 2,
            ElemType::U32 | ElemType::I32 | ElemType::F32 => 4,
            ElemType::U64 | ElemType::I64 | ElemType::F64 => 8,
        }
    }

    /// Whether the type is a floating-point type.
    pub fn is_float(self) -> bool {
        matches!(self, ElemType::F16 | ElemType::F32 | ElemType::F64)
    }

    /// Appends `v` converted to this type (integers truncate toward zero, then wrap; floats
    /// round to nearest even).
    fn push_f64(self, out: &mut Vec<u8>, v: f64) {
        match self {
            ElemType::F16 => out.extend_from_slice(&half::f16::from_f64(v).to_le_bytes()),
            ElemType::F32 => out.extend_from_slice(&(v as f32).to_le_bytes()),
            ElemType::F64 => out.extend_from_slice(&v.to_le_bytes()),
            int => int.push_bits(out, (v as i128) as u64),
        }
    }

    /// Appends the low `8 * size` bits of `bits`.
    fn push_bits(self, out: &mut Vec<u8>, bits: u64) {
        out.extend_from_slice(&bits.to_le_bytes()[..self.size()]);
    }

    /// Element `i` of `bytes` as f64 (for sums and tolerances).
    pub fn read_f64(self, bytes: &[u8], i: usize) -> f64 {
        let s = self.size();
        let mut b = [0u8; 8];
        b[..s].copy_from_slice(&bytes[i * s..(i + 1) * s]);
        let raw = u64::from_le_bytes(b);
        match self {
            ElemType::U8 | ElemType::U16 | ElemType::U32 | ElemType::U64 => raw as f64,
            ElemType::I8 => raw as u8 as i8 as f64,
            ElemType::I16 => raw as u16 as i16 as f64,
            ElemType::I32 => raw as u32 as i32 as f64,
            ElemType::I64 => raw as i64 as f64,
            ElemType::F16 => half::f16::from_bits(raw as u16).to_f64(),
            ElemType::F32 => f32::from_bits(raw as u32) as f64,
            ElemType::F64 => f64::from_bits(raw),
        }
    }
}

/// The corpus's integer hash (`lowbias32`).
fn lowbias32(mut x: u32) -> u32 {
    x ^= x >> 16;
    x = x.wrapping_mul(0x7feb_352d);
    x ^= x >> 15;
    x = x.wrapping_mul(0x846c_a68b);
    x ^= x >> 16;
    x
}

/// `hash(seed, k)` of the corpus README.
fn hash32(seed: u32, k: u64) -> u32 {
    lowbias32((k as u32) ^ seed.wrapping_mul(0x9e37_79b9))
}

/// 32 or 64 hash bits for element `i`.
fn hash_elem(seed: u32, i: u64, wide: bool) -> u64 {
    if wide {
        (u64::from(hash32(seed, 2 * i)) << 32) | u64::from(hash32(seed, 2 * i + 1))
    } else {
        u64::from(hash32(seed, i))
    }
}

/// The initial bytes of buffer `name`.
pub(crate) fn initial_bytes(
    name: &str,
    elem: ElemType,
    len: u64,
    init: &Init,
    base_dir: &Path,
) -> Result<Vec<u8>, ScenarioError> {
    let bad = |message: String| ScenarioError::BadInit {
        name: name.to_string(),
        message,
    };
    let total = len
        .checked_mul(elem.size() as u64)
        .filter(|&b| b <= (1 << 36))
        .ok_or_else(|| {
            bad(format!(
                "{len} elements is too large (at most 64 GiB per buffer)"
            ))
        })?;
    if let Init::Zeros = init {
        // Nothing to hold: a fresh allocation reads as zeros (see `Buffer::bytes`).
        return Ok(Vec::new());
    }
    let mut out = Vec::new();
    out.try_reserve_exact(total as usize).map_err(|_| {
        bad(format!(
            "{total} bytes of initial contents do not fit in host memory"
        ))
    })?;
    match init {
        Init::Zeros => {}
        Init::Iota => (0..len).for_each(|i| match elem.is_float() {
            true => elem.push_f64(&mut out, i as f64),
            false => elem.push_bits(&mut out, i),
        }),
        Init::Fill(v) => (0..len).for_each(|_| elem.push_f64(&mut out, *v)),
        Init::Bits { seed } => {
            let wide = elem.size() == 8;
            (0..len).for_each(|i| elem.push_bits(&mut out, hash_elem(*seed, i, wide)));
        }
        Init::Random { seed, lo, hi } => {
            if !lo.is_finite() || !hi.is_finite() || lo > hi {
                return Err(bad(format!(
                    "random range {lo}..={hi} is empty or not finite"
                )));
            }
            if elem.is_float() {
                for i in 0..len {
                    let u = f64::from(hash32(*seed, i) >> 8) / 16_777_216.0;
                    elem.push_f64(&mut out, lo + (hi - lo) * u);
                }
            } else {
                let (lo, hi) = (*lo as i128, *hi as i128);
                let span = hi - lo + 1;
                let wide = elem.size() == 8;
                for i in 0..len {
                    let h = i128::from(hash_elem(*seed, i, wide));
                    elem.push_bits(&mut out, (lo + h % span) as u64);
                }
            }
        }
        Init::File(rel) => {
            let path = base_dir.join(rel);
            let bytes = std::fs::read(&path).map_err(|e| ScenarioError::io(&path, e))?;
            if bytes.len() as u64 != total {
                return Err(bad(format!(
                    "init file {} has {} bytes, expected {len} x {} = {total}",
                    path.display(),
                    bytes.len(),
                    elem.size()
                )));
            }
            out = bytes;
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Values from the corpus README's definition, worked by hand for i = 0:
    /// hash(1, 0) = lowbias32(0x9e3779b9).
    #[test]
    fn hash_matches_the_definition() {
        let mut x: u32 = 0x9e37_79b9;
        x ^= x >> 16;
        x = x.wrapping_mul(0x7feb_352d);
        x ^= x >> 15;
        x = x.wrapping_mul(0x846c_a68b);
        x ^= x >> 16;
        assert_eq!(hash32(1, 0), x);
    }

    #[test]
    fn integer_random_is_inclusive_and_in_range() {
        let b = initial_bytes(
            "x",
            ElemType::I32,
            1000,
            &Init::Random {
                seed: 3,
                lo: -2.0,
                hi: 2.0,
            },
            Path::new("."),
        )
        .unwrap();
        let vals: Vec<f64> = (0..1000).map(|i| ElemType::I32.read_f64(&b, i)).collect();
        assert!(vals.iter().all(|v| (-2.0..=2.0).contains(v)));
        for want in [-2.0, 2.0] {
            assert!(vals.contains(&want), "{want} never drawn");
        }
    }

    #[test]
    fn iota_and_fill_convert() {
        let b = initial_bytes("x", ElemType::U8, 300, &Init::Iota, Path::new(".")).unwrap();
        assert_eq!(b[299], (299u32 % 256) as u8);
        let b = initial_bytes(
            "x",
            ElemType::U32,
            2,
            &Init::Fill(4294967295.0),
            Path::new("."),
        )
        .unwrap();
        assert_eq!(b, [0xff; 8]);
        let b = initial_bytes("x", ElemType::F16, 1, &Init::Fill(1.5), Path::new(".")).unwrap();
        assert_eq!(b, half::f16::from_f32(1.5).to_le_bytes());
    }
}
