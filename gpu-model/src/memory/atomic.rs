//! Atomic read-modify-write operations on device memory (32 and 64 bit).

use super::sync::Ordering;
use super::{Access, DeviceMemory, FaultKind, MemFault};

/// A GPU atomic operation. Each returns the old value; the new value is computed from the
/// old one and the operand(s) as the ISA documents for `*_atomic_<op>`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[non_exhaustive]
pub enum AtomicOp {
    /// new = src.
    Swap,
    /// new = old == cmp ? src : old.
    CmpSwap,
    /// new = old + src (wrapping).
    Add,
    /// new = old - src (wrapping).
    Sub,
    /// new = old & src.
    And,
    /// new = old | src.
    Or,
    /// new = old ^ src.
    Xor,
    /// new = min(old, src), unsigned.
    MinU,
    /// new = max(old, src), unsigned.
    MaxU,
    /// new = min(old, src), signed.
    MinS,
    /// new = max(old, src), signed.
    MaxS,
    /// `atomic_inc`: new = old >= src ? 0 : old + 1.
    IncWrap,
    /// `atomic_dec`: new = (old == 0 || old > src) ? src : old - 1.
    DecWrap,
    /// Float add at the access width (f32 or f64).
    FAdd,
    /// Float minimum at the access width (IEEE minNum: a NaN operand loses).
    FMin,
    /// Float maximum at the access width (IEEE maxNum).
    FMax,
    /// GFX12 `*_atomic_min_num_f32` / `image_atomic_min_flt` (RDNA4 ISA pseudocode): a NaN
    /// operand loses; two NaNs give the operand quieted; -0 is less than +0.
    FMinNum,
    /// GFX12 `*_atomic_max_num_f32` / `image_atomic_max_flt`: as [`AtomicOp::FMinNum`],
    /// +0 greater than -0.
    FMaxNum,
    /// `*_atomic_pk_add_f16`: two f16 halves added independently (IEEE round to nearest
    /// even, denormals kept). 32-bit; at 64 bits each 32-bit half is such a pair.
    PkAddF16,
    /// `*_atomic_pk_add_bf16`: as [`AtomicOp::PkAddF16`] with bf16 halves.
    PkAddBf16,
    /// `*_atomic_csub` / GFX12 `*_atomic_sub_clamp_u32`: new = old < src ? 0 : old - src.
    SubClamp,
    /// GFX12 `*_atomic_cond_sub_u32`: new = old >= src ? old - src : old.
    CondSub,
}

/// Two packed 16-bit floats (`to`/`from` f32 of the format) added half by half: the f32
/// sum of two 16-bit values rounded once more to 16 bits equals the correctly rounded
/// 16-bit sum (f32 has at least 2p + 2 bits for both formats, so double rounding is
/// innocuous).
#[inline]
fn pk_add16(a: u32, b: u32, to: fn(u16) -> f32, from: fn(f32) -> u16) -> u32 {
    let lane = |s: u32| {
        let x = (a >> s) as u16;
        let y = (b >> s) as u16;
        u32::from(from(to(x) + to(y))) << s
    };
    lane(0) | lane(16)
}

fn f16_to(x: u16) -> f32 {
    half::f16::from_bits(x).to_f32()
}
fn f16_from(x: f32) -> u16 {
    half::f16::from_f32(x).to_bits()
}
fn bf16_to(x: u16) -> f32 {
    half::bf16::from_bits(x).to_f32()
}
fn bf16_from(x: f32) -> u16 {
    half::bf16::from_f32(x).to_bits()
}

/// One definition of every operation, instantiated per access width.
macro_rules! apply_at_width {
    ($(#[$doc:meta])* $name:ident, $u:ty, $i:ty, $f:ty) => {
        $(#[$doc])*
        #[inline]
        pub fn $name(self, old: $u, src: $u, cmp: $u) -> $u {
            let f = <$f>::from_bits;
            match self {
                AtomicOp::Swap => src,
                AtomicOp::CmpSwap => {
                    if old == cmp {
                        src
                    } else {
                        old
                    }
                }
                AtomicOp::Add => old.wrapping_add(src),
                AtomicOp::Sub => old.wrapping_sub(src),
                AtomicOp::And => old & src,
                AtomicOp::Or => old | src,
                AtomicOp::Xor => old ^ src,
                AtomicOp::MinU => old.min(src),
                AtomicOp::MaxU => old.max(src),
                AtomicOp::MinS => (old as $i).min(src as $i) as $u,
                AtomicOp::MaxS => (old as $i).max(src as $i) as $u,
                AtomicOp::IncWrap => {
                    if old >= src {
                        0
                    } else {
                        old + 1
                    }
                }
                AtomicOp::DecWrap => {
                    if old == 0 || old > src {
                        src
                    } else {
                        old - 1
                    }
                }
                AtomicOp::FAdd => (f(old) + f(src)).to_bits(),
                AtomicOp::FMin => f(old).min(f(src)).to_bits(),
                AtomicOp::FMax => f(old).max(f(src)).to_bits(),
                AtomicOp::FMinNum | AtomicOp::FMaxNum => {
                    let (t, s) = (f(old), f(src));
                    let quiet: $u = 1 << (<$f>::MANTISSA_DIGITS - 2);
                    let sign = |x: $u| x >> (<$u>::BITS - 1) != 0;
                    let zeros = t == 0.0 && s == 0.0;
                    let take_src = if self == AtomicOp::FMinNum {
                        s < t || (zeros && sign(src) && !sign(old))
                    } else {
                        s > t || (zeros && !sign(src) && sign(old))
                    };
                    match (s.is_nan(), t.is_nan()) {
                        (true, true) => src | quiet,
                        (true, false) => old,
                        (false, true) => src,
                        _ if take_src => src,
                        _ => old,
                    }
                }
                AtomicOp::PkAddF16 | AtomicOp::PkAddBf16 => {
                    let (to, from): (fn(u16) -> f32, fn(f32) -> u16) =
                        if self == AtomicOp::PkAddF16 {
                            (f16_to, f16_from)
                        } else {
                            (bf16_to, bf16_from)
                        };
                    let mut r: $u = 0;
                    let mut sh = 0;
                    while sh < <$u>::BITS {
                        let w = pk_add16((old >> sh) as u32, (src >> sh) as u32, to, from);
                        r |= (w as $u) << sh;
                        sh += 32;
                    }
                    r
                }
                AtomicOp::SubClamp => old.saturating_sub(src),
                AtomicOp::CondSub => {
                    if old >= src {
                        old - src
                    } else {
                        old
                    }
                }
            }
        }
    };
}

impl AtomicOp {
    apply_at_width!(
        /// The new 32-bit value.
        apply_u32, u32, i32, f32
    );
    apply_at_width!(
        /// The new 64-bit value.
        apply_u64, u64, i64, f64
    );
}

impl DeviceMemory {
    /// An atomic that missed the page tables: on a host range when there is one (see
    /// [`super::host`]), else the fault `f` the page lookup reported.
    #[cold]
    fn host_atomic(
        &self,
        addr: u64,
        n: usize,
        f: MemFault,
        op: impl FnMut(u64) -> u64,
    ) -> Result<u64, MemFault> {
        if f.kind == FaultKind::Misaligned || self.host_at(addr, n as u64).is_none() {
            return Err(f);
        }
        self.host_rmw(addr, n, op)
    }

    /// Resolves a naturally aligned `n`-byte atomic access.
    #[inline]
    fn atomic_page(&self, addr: u64, n: usize) -> Result<(&super::Page, usize), MemFault> {
        if addr & (n as u64 - 1) != 0 {
            return Err(MemFault {
                addr,
                size: n as u64,
                access: Access::Atomic,
                kind: FaultKind::Misaligned,
            });
        }
        // Aligned accesses never cross a page, so the fast path is the only path.
        self.resolve(addr, n)
            .ok_or_else(|| self.fault(addr, n as u64, Access::Atomic))
    }

    /// Checks that an `n`-byte atomic at `addr` would not fault, without performing it.
    #[inline]
    pub fn check_atomic(&self, addr: u64, n: usize) -> Result<(), MemFault> {
        match self.atomic_page(addr, n) {
            Ok(_) => Ok(()),
            Err(f) => match self.host_at(addr, n as u64) {
                Some(_) if addr.is_multiple_of(n as u64) => Ok(()),
                _ => Err(f),
            },
        }
    }

    /// Performs a 32-bit atomic `op` at `addr` (4-byte aligned) with operand `src` (and
    /// `cmp` for [`AtomicOp::CmpSwap`]); returns the old value.
    #[inline]
    pub fn atomic_u32(&self, addr: u64, op: AtomicOp, src: u32, cmp: u32) -> Result<u32, MemFault> {
        let (p, off) = match self.atomic_page(addr, 4) {
            Ok(r) => r,
            Err(f) => {
                return self
                    .host_atomic(addr, 4, f, |old| op.apply_u32(old as u32, src, cmp) as u64)
                    .map(|v| v as u32)
            }
        };
        Ok(p.rmw(off, 4, |old| op.apply_u32(old as u32, src, cmp) as u64) as u32)
    }

    /// Performs a 64-bit atomic `op` at `addr` (8-byte aligned); returns the old value.
    #[inline]
    pub fn atomic_u64(&self, addr: u64, op: AtomicOp, src: u64, cmp: u64) -> Result<u64, MemFault> {
        let (p, off) = match self.atomic_page(addr, 8) {
            Ok(r) => r,
            Err(f) => return self.host_atomic(addr, 8, f, |old| op.apply_u64(old, src, cmp)),
        };
        let w = p.word(off);
        let o = Ordering::AcqRel;
        // Native instructions where the host has them; a compare-exchange loop otherwise.
        Ok(match op {
            AtomicOp::Swap => w.swap(src, o),
            AtomicOp::Add => w.fetch_add(src, o),
            AtomicOp::Sub => w.fetch_sub(src, o),
            AtomicOp::And => w.fetch_and(src, o),
            AtomicOp::Or => w.fetch_or(src, o),
            AtomicOp::Xor => w.fetch_xor(src, o),
            AtomicOp::MinU => w.fetch_min(src, o),
            AtomicOp::MaxU => w.fetch_max(src, o),
            AtomicOp::CmpSwap => match w.compare_exchange(cmp, src, o, Ordering::Acquire) {
                Ok(v) | Err(v) => v,
            },
            _ => p.rmw(off, 8, |old| op.apply_u64(old, src, cmp)),
        })
    }

    /// Applies an arbitrary 32-bit read-modify-write atomically (for operations the
    /// executor defines itself); returns the old value.
    pub fn rmw_u32(&self, addr: u64, mut f: impl FnMut(u32) -> u32) -> Result<u32, MemFault> {
        let (p, off) = match self.atomic_page(addr, 4) {
            Ok(r) => r,
            Err(e) => {
                return self
                    .host_atomic(addr, 4, e, |old| f(old as u32) as u64)
                    .map(|v| v as u32)
            }
        };
        Ok(p.rmw(off, 4, |old| f(old as u32) as u64) as u32)
    }

    /// Applies an arbitrary 64-bit read-modify-write atomically; returns the old value.
    pub fn rmw_u64(&self, addr: u64, mut f: impl FnMut(u64) -> u64) -> Result<u64, MemFault> {
        let (p, off) = match self.atomic_page(addr, 8) {
            Ok(r) => r,
            Err(e) => return self.host_atomic(addr, 8, e, &mut f),
        };
        Ok(p.rmw(off, 8, f))
    }
}
