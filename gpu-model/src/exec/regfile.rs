//! A wave's vector register file (VGPR and AGPR rows) in lazily zeroed memory.
//!
//! Why not a `Vec`: a wave has 1024 rows of 64 lanes (256 KiB), of which a kernel names a
//! few dozen. A zeroed `Vec` of that size is zeroed eagerly whenever the allocator takes it
//! from its heap (glibc does once large blocks have been freed, which a run does when it
//! drops its input buffers): 9728 resident waves of an MI300X then cost 2.4 GB of memset,
//! most of a large grid's host time. An anonymous mapping is zeroed by the OS page by page
//! on first touch, so a wave costs what it uses (measured on a 4 Mi-element vector add:
//! 2.2-4.1 s and 1.6 GB peak with `Vec`, 1.05 s and 0.4 GB with mappings).
//!
//! The long-term shape is one register file per SIMD with per-wave bases (what the
//! occupancy allocator already assigns); this keeps `Wave` self-contained until then.

use super::wave::LANES;
use std::ops::{Deref, DerefMut};
use std::ptr::NonNull;

/// One row: a register's value in every lane.
pub(crate) type Row = [u32; LANES];

/// `rows` rows of zero-initialised, lazily backed memory, indexable like `[Row]`.
pub(crate) struct RegFile {
    /// Keeps the mapping alive; `ptr` points into it.
    _map: Option<memmap2::MmapMut>,
    ptr: NonNull<Row>,
    rows: usize,
}

// SAFETY: a `RegFile` exclusively owns its mapping (like a `Box<[Row]>`); `&RegFile` gives
// only shared reads.
unsafe impl Send for RegFile {}
// SAFETY: as above: no interior mutability.
unsafe impl Sync for RegFile {}

impl RegFile {
    /// `rows` zeroed rows. If the OS refuses a mapping, a heap allocation stands in.
    pub(crate) fn new(rows: usize) -> RegFile {
        let bytes = rows * std::mem::size_of::<Row>();
        if bytes > 0 {
            if let Ok(mut map) = memmap2::MmapMut::map_anon(bytes) {
                // A mapping is page aligned (enough for `Row`), `bytes` long and zeroed
                // (all-zero bits are a valid `Row`).
                if let Some(ptr) = NonNull::new(map.as_mut_ptr().cast::<Row>()) {
                    return RegFile {
                        _map: Some(map),
                        ptr,
                        rows,
                    };
                }
            }
        }
        let boxed: Box<[Row]> = vec![[0; LANES]; rows].into_boxed_slice();
        let ptr = NonNull::from(Box::leak(boxed)).cast::<Row>();
        RegFile {
            _map: None,
            ptr,
            rows,
        }
    }
}

impl Drop for RegFile {
    fn drop(&mut self) {
        if self._map.is_none() {
            // SAFETY: without a mapping, `ptr`/`rows` came from the leaked box in `new`.
            drop(unsafe {
                Box::from_raw(std::ptr::slice_from_raw_parts_mut(
                    self.ptr.as_ptr(),
                    self.rows,
                ))
            });
        }
    }
}

impl Deref for RegFile {
    type Target = [Row];
    #[inline(always)]
    fn deref(&self) -> &[Row] {
        // SAFETY: `ptr` is valid, aligned and initialised for `rows` rows while `self`
        // lives (see `new`), and `&self` excludes writers.
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.rows) }
    }
}

impl DerefMut for RegFile {
    #[inline(always)]
    fn deref_mut(&mut self) -> &mut [Row] {
        // SAFETY: as in `deref`, and `&mut self` is the only access.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.as_ptr(), self.rows) }
    }
}

impl Clone for RegFile {
    fn clone(&self) -> RegFile {
        let mut r = RegFile::new(self.rows);
        r.copy_from_slice(self);
        r
    }
}

impl std::fmt::Debug for RegFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RegFile").field("rows", &self.rows).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_start_zeroed_and_keep_what_is_written() {
        let mut r = RegFile::new(1024);
        assert_eq!(r.len(), 1024);
        assert!(r.iter().all(|row| row.iter().all(|&x| x == 0)));
        r[1023][63] = 7;
        r[0][0] = 1;
        let c = r.clone();
        r[0][0] = 2;
        assert_eq!((c[0][0], c[1023][63], r[0][0]), (1, 7, 2));
        assert!(RegFile::new(0).is_empty());
    }
}
