//! One 64 KiB page of device memory: atomic 64-bit words, materialised on first write.
//!
//! Why atomics for plain data: compute units on different host threads read and write the
//! same pages, and a racy guest kernel must not be undefined behaviour in the host. Every
//! access is an atomic operation on whole `AtomicU64` words (Relaxed for plain accesses, which
//! compiles to ordinary loads and stores on x86-64 and AArch64), so no two host accesses ever
//! race non-atomically or with mixed sizes. Sub-word stores merge into their word with a
//! compare-exchange loop, so a store never clobbers a neighbouring byte another thread wrote.

use super::sync::{AtomicU64, Ordering};
use super::AllocationId;
use std::sync::OnceLock;

/// log2 of the page size.
pub const PAGE_SHIFT: u32 = 16;
/// Bytes per page (64 KiB).
pub const PAGE_SIZE: u64 = 1 << PAGE_SHIFT;
/// 64-bit words per page.
pub(crate) const WORDS_PER_PAGE: usize = (PAGE_SIZE / 8) as usize;

/// A page's storage. A fixed-size array, so indices derived from a page offset need no
/// bounds check.
type Words = [AtomicU64; WORDS_PER_PAGE];

/// A page of an allocation.
#[derive(Debug)]
pub(crate) struct Page {
    /// The storage, created on the first write: a never-written page reads as zeros, so
    /// large sparse allocations cost nothing.
    words: OnceLock<Box<Words>>,
    /// Bytes of this page that belong to the allocation (less than PAGE_SIZE on the last
    /// page of an allocation whose size is not a page multiple).
    pub(crate) valid_len: u32,
    /// The allocation the page belongs to.
    pub(crate) alloc: AllocationId,
}

/// The word holding page offset `off`. Callers keep `off < PAGE_SIZE`; the mask lets the
/// compiler drop the bounds check (and keeps a broken caller inside the page).
#[inline(always)]
const fn word_index(off: usize) -> usize {
    (off >> 3) & (WORDS_PER_PAGE - 1)
}

/// Mask of the low `n` bytes (n in 1..=8).
#[inline(always)]
const fn byte_mask(n: usize) -> u64 {
    if n >= 8 {
        u64::MAX
    } else {
        (1u64 << (n * 8)) - 1
    }
}

impl Page {
    pub(crate) fn new(valid_len: u32, alloc: AllocationId) -> Page {
        Page {
            words: OnceLock::new(),
            valid_len,
            alloc,
        }
    }

    /// The storage, if the page was ever written.
    #[inline(always)]
    pub(crate) fn words(&self) -> Option<&Words> {
        self.words.get().map(|b| &**b)
    }

    /// The storage, created (zeroed) if needed.
    #[inline(always)]
    pub(crate) fn words_mut(&self) -> &Words {
        self.words.get_or_init(|| {
            let words: Box<[AtomicU64]> = (0..WORDS_PER_PAGE).map(|_| AtomicU64::new(0)).collect();
            match words.try_into() {
                Ok(array) => array,
                // The iterator above yields exactly WORDS_PER_PAGE items.
                Err(_) => unreachable!("page storage has WORDS_PER_PAGE words"),
            }
        })
    }

    /// Loads `n` (1..=8) little-endian bytes at page offset `off`; the caller guarantees
    /// `off + n <= PAGE_SIZE`.
    #[inline(always)]
    pub(crate) fn load(&self, off: usize, n: usize) -> u64 {
        let Some(w) = self.words() else { return 0 };
        let (i, sh) = (word_index(off), (off & 7) * 8);
        let lo = w[i].load(Ordering::Relaxed) >> sh;
        if (off & 7) + n <= 8 {
            lo & byte_mask(n)
        } else {
            // Spans two words: the caller's bound keeps i + 1 inside the page.
            let hi = w[word_index(off + 8)].load(Ordering::Relaxed) << (64 - sh);
            (lo | hi) & byte_mask(n)
        }
    }

    /// Stores the low `n` (1..=8) bytes of `v` at page offset `off` (`off + n <= PAGE_SIZE`).
    #[inline(always)]
    pub(crate) fn store(&self, off: usize, n: usize, v: u64) {
        let w = self.words_mut();
        let (i, sh) = (word_index(off), (off & 7) * 8);
        if n == 8 && sh == 0 {
            w[i].store(v, Ordering::Relaxed);
        } else if (off & 7) + n <= 8 {
            merge(&w[i], byte_mask(n) << sh, v << sh);
        } else {
            let lo_bytes = 8 - (off & 7);
            merge(&w[i], byte_mask(lo_bytes) << sh, v << sh);
            merge(
                &w[word_index(off + 8)],
                byte_mask(n - lo_bytes),
                v >> (lo_bytes * 8),
            );
        }
    }

    /// Loads consecutive dwords at `off` (`off + 4 * out.len() <= PAGE_SIZE`).
    #[inline]
    pub(crate) fn load_dwords(&self, off: usize, out: &mut [u32]) {
        for (i, o) in out.iter_mut().enumerate() {
            *o = self.load(off + 4 * i, 4) as u32;
        }
    }

    /// Stores consecutive dwords at `off`. Whole 64-bit words take a plain store; only a
    /// dword that shares its word with bytes outside the access needs the merging store.
    #[inline]
    pub(crate) fn store_dwords(&self, off: usize, data: &[u32]) {
        let mut i = 0;
        while i < data.len() {
            let o = off + 4 * i;
            if o.is_multiple_of(8) && i + 1 < data.len() {
                self.store(o, 8, data[i] as u64 | (data[i + 1] as u64) << 32);
                i += 2;
            } else {
                self.store(o, 4, data[i] as u64);
                i += 1;
            }
        }
    }

    /// Copies page bytes `off..off + out.len()` into `out`.
    pub(crate) fn read_bytes(&self, off: usize, out: &mut [u8]) {
        let Some(w) = self.words() else {
            out.fill(0);
            return;
        };
        let mut o = off;
        let mut rest = out;
        while !rest.is_empty() {
            let in_word = o & 7;
            let n = (8 - in_word).min(rest.len());
            let bytes = w[o >> 3].load(Ordering::Relaxed).to_le_bytes();
            let (head, tail) = rest.split_at_mut(n);
            head.copy_from_slice(&bytes[in_word..in_word + n]);
            o += n;
            rest = tail;
        }
    }

    /// Copies `data` to page bytes `off..off + data.len()`: whole words with plain stores,
    /// ragged ends merged.
    pub(crate) fn write_bytes(&self, off: usize, data: &[u8]) {
        let w = self.words_mut();
        let mut o = off;
        let mut rest = data;
        while !rest.is_empty() {
            let in_word = o & 7;
            let n = (8 - in_word).min(rest.len());
            let mut bytes = [0u8; 8];
            bytes[in_word..in_word + n].copy_from_slice(&rest[..n]);
            let v = u64::from_le_bytes(bytes);
            if n == 8 {
                w[o >> 3].store(v, Ordering::Relaxed);
            } else {
                merge(&w[o >> 3], byte_mask(n) << (in_word * 8), v);
            }
            o += n;
            rest = &rest[n..];
        }
    }

    /// Applies `f` atomically to the `n`-byte (4 or 8) naturally aligned value at `off`,
    /// returning the old value.
    #[inline]
    pub(crate) fn rmw(&self, off: usize, n: usize, mut f: impl FnMut(u64) -> u64) -> u64 {
        let w = &self.words_mut()[word_index(off)];
        let sh = (off & 7) * 8;
        let mask = byte_mask(n);
        let mut old = 0;
        // fetch_update retries until the compare-exchange succeeds: a real atomic RMW.
        let _ = w.fetch_update(Ordering::AcqRel, Ordering::Acquire, |word| {
            old = (word >> sh) & mask;
            let new = f(old) & mask;
            Some((word & !(mask << sh)) | (new << sh))
        });
        old
    }

    /// The 64-bit word at `off` (8-byte aligned), for operations that map onto native
    /// 64-bit atomics.
    #[inline]
    pub(crate) fn word(&self, off: usize) -> &AtomicU64 {
        &self.words_mut()[word_index(off)]
    }
}

/// Replaces the bits of `word` selected by `mask` with those of `bits`, atomically with
/// respect to other writers of the same word.
#[inline(always)]
fn merge(word: &AtomicU64, mask: u64, bits: u64) {
    let _ = word.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |w| {
        Some((w & !mask) | (bits & mask))
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unaligned_loads_and_stores_match_a_byte_array() {
        let p = Page::new(PAGE_SIZE as u32, AllocationId(1));
        let mut shadow = vec![0u8; 64];
        let mut seed = 0x1234_5678_9abc_def0u64;
        for _ in 0..2000 {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let n = [1usize, 2, 4, 8][(seed >> 60) as usize & 3];
            let off = (seed >> 32) as usize % (64 - n);
            let v = seed.rotate_left(17);
            p.store(off, n, v);
            shadow[off..off + n].copy_from_slice(&v.to_le_bytes()[..n]);
            let off2 = (seed >> 20) as usize % (64 - 8);
            let mut b = [0u8; 8];
            b.copy_from_slice(&shadow[off2..off2 + 8]);
            assert_eq!(p.load(off2, 8), u64::from_le_bytes(b));
            assert_eq!(p.load(off2, 2), u16::from_le_bytes([b[0], b[1]]) as u64);
        }
        let mut out = vec![0u8; 64];
        p.read_bytes(0, &mut out);
        assert_eq!(out, shadow);
    }
}
