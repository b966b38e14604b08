//! Buffered printf: the `hidden_printf_buffer` a kernel appends records to, printed by the
//! host when the dispatch ends (as the OpenCL and HIP runtimes do).
//!
//! The buffer, as the device libraries' `__printf_alloc` uses it (ROCm 5.2.3's `opencl.bc`
//! and the newer `ockl.bc` agree, read with llvm-dis-22): a 32-bit write offset at +0
//! (bumped with a compare-and-swap loop), the buffer's total size in bytes at +4, and the
//! records from +8 on. An allocation that would end past `size - 8` bytes of record space
//! fails and the kernel's `printf` prints nothing (it returns -1).
//!
//! Two record layouts, told apart by the code object's `amdhsa.printf` list (what clang-22
//! emits, read from its IR):
//! * OpenCL (LLVM's printf runtime binding): a 32-bit format id, then the arguments packed
//!   back to back with the byte sizes the format's entry lists: `float` as 4 bytes,
//!   vectors whole (`int4` is 16 bytes, printed with `%v4d` as comma-separated elements),
//!   `%s` arguments as the literal string's bytes.
//! * HIP `-mprintf-kind=buffered`: a control word `record_bytes << 2 | constant_format << 1
//!   | stderr`, then the 64-bit hash of a constant format (or, for a non-constant one, the
//!   format's bytes with their null, padded to 8 bytes), then one 8-byte slot per argument
//!   (integers zero-extended, `float` promoted to `double`), except `%s`: the string's
//!   bytes with their null, padded to 8 (a null pointer stores nothing).

use super::printf::{self, Args};
use super::{DispatchOutput, ServiceError, SetupError};
use crate::loader::PrintfFormat;
use crate::memory::DeviceMemory;
use std::sync::Arc;

/// The buffer's size: the OpenCL full profile's minimum `CL_DEVICE_PRINTF_BUFFER_SIZE`
/// (1 MB, OpenCL 1.2 table 4.3). Our choice of size, not a measured runtime default.
pub(crate) const BUFFER_BYTES: u32 = 1 << 20;

/// The header: write offset and size.
const HEADER: u64 = 8;

/// A dispatch's printf buffer.
#[derive(Debug)]
pub(crate) struct PrintfBuffer {
    /// Device address of the header.
    pub base: u64,
    formats: Arc<[PrintfFormat]>,
    /// Whether the records are HIP's (the list has hashed formats) or OpenCL's.
    hashed: bool,
}

impl PrintfBuffer {
    /// Allocates and initialises a buffer for a kernel of a code object whose
    /// `amdhsa.printf` list is `formats`.
    pub fn allocate(
        mem: &mut DeviceMemory,
        formats: &Arc<[PrintfFormat]>,
    ) -> Result<PrintfBuffer, SetupError> {
        let base = mem.allocate(u64::from(BUFFER_BYTES), 64)?;
        let mut header = [0u8; HEADER as usize];
        header[4..].copy_from_slice(&BUFFER_BYTES.to_le_bytes());
        mem.write(base, &header)?;
        Ok(PrintfBuffer {
            base,
            formats: formats.clone(),
            hashed: formats
                .iter()
                .any(|f| matches!(f, PrintfFormat::Hashed { .. })),
        })
    }

    /// Prints the records the dispatch left into `out`, in buffer order.
    pub fn drain(&self, mem: &DeviceMemory, out: &mut DispatchOutput) -> Result<(), ServiceError> {
        let mut header = [0u8; HEADER as usize];
        mem.read(self.base, &mut header)?;
        let used = u32::from_le_bytes(header[..4].try_into().unwrap_or_default());
        // A kernel that overwrote the header cannot send us past the buffer.
        let used = used.min(BUFFER_BYTES - HEADER as u32) as usize;
        let mut records = vec![0u8; used];
        mem.read(self.base + HEADER, &mut records)?;
        if self.hashed {
            self.print_hashed(&records, out)
        } else {
            self.print_numbered(&records, out)
        }
    }

    /// OpenCL records.
    fn print_numbered(&self, mut rec: &[u8], out: &mut DispatchOutput) -> Result<(), ServiceError> {
        let mut offset = 0usize;
        while rec.len() >= 4 {
            let id = u32::from_le_bytes([rec[0], rec[1], rec[2], rec[3]]);
            let Some((sizes, format)) = self.formats.iter().find_map(|f| match f {
                PrintfFormat::Numbered {
                    id: fid,
                    arg_sizes,
                    format,
                } if *fid == id => Some((arg_sizes, format)),
                _ => None,
            }) else {
                return Err(ServiceError::PrintfRecord {
                    offset: offset as u64,
                    reason: format!("format id {id} is not in the code object's amdhsa.printf"),
                });
            };
            let total: usize = sizes.iter().map(|&s| s as usize).sum();
            let Some(data) = rec.get(4..4 + total) else {
                return Err(ServiceError::PrintfRecord {
                    offset: offset as u64,
                    reason: format!(
                        "format id {id} needs {total} argument bytes, {} are left",
                        rec.len() - 4
                    ),
                });
            };
            let (format, sizes) = expand_vectors(format, sizes);
            let mut args = Packed {
                data,
                sizes: &sizes,
                next: 0,
            };
            printf::format(&format, &mut args, &mut out.stdout);
            rec = &rec[4 + total..];
            offset += 4 + total;
        }
        Ok(())
    }

    /// HIP records.
    fn print_hashed(&self, rec: &[u8], out: &mut DispatchOutput) -> Result<(), ServiceError> {
        let mut offset = 0usize;
        while offset + 4 <= rec.len() {
            let bad = |reason: String| ServiceError::PrintfRecord {
                offset: offset as u64,
                reason,
            };
            let control =
                u32::from_le_bytes(rec[offset..offset + 4].try_into().unwrap_or_default());
            let bytes = (control >> 2) as usize;
            if bytes < 4 || offset + bytes > rec.len() {
                return Err(bad(format!(
                    "record of {bytes} bytes does not fit the {} bytes left",
                    rec.len() - offset
                )));
            }
            let body = &rec[offset + 4..offset + bytes];
            let (format, args): (Vec<u8>, &[u8]) = if control & 2 != 0 {
                let hash = body
                    .get(..8)
                    .map(|h| u64::from_le_bytes(h.try_into().unwrap_or_default()))
                    .ok_or_else(|| bad("constant-format record without its hash".into()))?;
                let format = self
                    .formats
                    .iter()
                    .find_map(|f| match f {
                        PrintfFormat::Hashed { hash: h, format } if *h == hash => {
                            Some(format.clone())
                        }
                        _ => None,
                    })
                    .ok_or_else(|| {
                        bad(format!(
                            "format hash {hash:x} is not in the code object's amdhsa.printf"
                        ))
                    })?;
                (format, &body[8..])
            } else {
                let (format, used) = padded_string(body);
                (format, &body[used..])
            };
            let mut a = Slots { data: args };
            let sink = if control & 1 != 0 {
                &mut out.stderr
            } else {
                &mut out.stdout
            };
            printf::format(&format, &mut a, sink);
            offset += bytes;
        }
        Ok(())
    }
}

/// A null-terminated string at the start of `b` and the bytes it occupies (its null
/// included, rounded up to 8).
fn padded_string(b: &[u8]) -> (Vec<u8>, usize) {
    match b.iter().position(|&c| c == 0) {
        Some(n) => (b[..n].to_vec(), (n + 1).next_multiple_of(8).min(b.len())),
        None => (b.to_vec(), b.len()),
    }
}

/// Rewrites OpenCL vector conversions (`%v4d`, `%v2hlf`) as one conversion per element,
/// separated by commas (OpenCL 1.2 §6.12.13.2), and splits their sizes to match.
/// Each size comes with the padding bytes that follow it (a 3-element vector's fourth).
fn expand_vectors(format: &[u8], sizes: &[u32]) -> (Vec<u8>, Vec<(u32, u32)>) {
    if !format.windows(2).any(|w| w == b"%v") {
        return (format.to_vec(), sizes.iter().map(|&s| (s, 0)).collect());
    }
    let mut f = Vec::with_capacity(format.len() * 2);
    let mut s = Vec::with_capacity(sizes.len() * 2);
    let mut arg = 0usize;
    let mut i = 0usize;
    while i < format.len() {
        if format[i] != b'%' {
            f.push(format[i]);
            i += 1;
            continue;
        }
        if format.get(i + 1) == Some(&b'%') {
            f.extend_from_slice(b"%%");
            i += 2;
            continue;
        }
        // One conversion: flags, width, precision, then an optional `vN`.
        let start = i;
        i += 1;
        while i < format.len() && b"-+ #0123456789.*".contains(&format[i]) {
            i += 1;
        }
        let spec = &format[start..i];
        let stars = spec.iter().filter(|&&c| c == b'*').count();
        for _ in 0..stars {
            s.push((sizes.get(arg).copied().unwrap_or(4), 0));
            arg += 1;
        }
        let mut lanes = 1usize;
        if format.get(i) == Some(&b'v') {
            let digits = format[i + 1..]
                .iter()
                .take_while(|c| c.is_ascii_digit())
                .count();
            if let Ok(n) = std::str::from_utf8(&format[i + 1..i + 1 + digits])
                .unwrap_or("")
                .parse::<usize>()
            {
                lanes = n.max(1);
            }
            i += 1 + digits;
        }
        let mut length: &[u8] = b"";
        for m in [&b"hh"[..], b"hl", b"h", b"l"] {
            if format[i..].starts_with(m) {
                // `hl` (32-bit vector elements) is not a C length modifier.
                length = if m == b"hl" { b"" } else { m };
                i += m.len();
                break;
            }
        }
        let conv = format.get(i).copied();
        i += usize::from(conv.is_some());
        let size = sizes.get(arg).copied();
        arg += 1;
        if lanes == 1 {
            f.extend_from_slice(&format[start..i]);
            if let Some(size) = size {
                s.push((size, 0));
            }
            continue;
        }
        // A 3-element vector is stored as 4.
        let stored = if lanes == 3 { 4 } else { lanes };
        let elem = size.map(|b| b / stored as u32);
        for lane in 0..lanes {
            if lane > 0 {
                f.push(b',');
            }
            f.extend_from_slice(spec);
            f.extend_from_slice(length);
            f.extend(conv);
            if let Some(e) = elem {
                s.push((e, 0));
            }
        }
        if let (Some(size), Some(e), Some(last)) = (size, elem, s.last_mut()) {
            // The padding lane of a 3-element vector.
            last.1 = size.saturating_sub(e * lanes as u32);
        }
    }
    (f, s)
}

/// OpenCL arguments: packed, each with the size the metadata gives.
struct Packed<'a> {
    data: &'a [u8],
    sizes: &'a [(u32, u32)],
    next: usize,
}

impl Packed<'_> {
    fn take(&mut self) -> Option<&[u8]> {
        let (size, pad) = *self.sizes.get(self.next)?;
        self.next += 1;
        let (a, rest) = self.data.split_at_checked(size as usize)?;
        self.data = rest.get(pad as usize..).unwrap_or_default();
        Some(a)
    }
}

fn le_u64(b: &[u8]) -> u64 {
    let mut w = [0u8; 8];
    let n = b.len().min(8);
    w[..n].copy_from_slice(&b[..n]);
    u64::from_le_bytes(w)
}

impl Args for Packed<'_> {
    fn int(&mut self) -> Option<u64> {
        self.take().map(le_u64)
    }

    fn float(&mut self) -> Option<f64> {
        let b = self.take()?;
        Some(match b.len() {
            2 => f64::from(half::f16::from_bits(le_u64(b) as u16)),
            4 => f64::from(f32::from_bits(le_u64(b) as u32)),
            _ => f64::from_bits(le_u64(b)),
        })
    }

    fn string(&mut self) -> Option<Vec<u8>> {
        let b = self.take()?;
        let n = b.iter().position(|&c| c == 0).unwrap_or(b.len());
        Some(b[..n].to_vec())
    }
}

/// HIP arguments: 8-byte slots, strings inline.
struct Slots<'a> {
    data: &'a [u8],
}

impl Args for Slots<'_> {
    fn int(&mut self) -> Option<u64> {
        let (a, rest) = self.data.split_at_checked(8)?;
        self.data = rest;
        Some(le_u64(a))
    }

    fn float(&mut self) -> Option<f64> {
        self.int().map(f64::from_bits)
    }

    fn string(&mut self) -> Option<Vec<u8>> {
        let (s, used) = padded_string(self.data);
        self.data = &self.data[used..];
        Some(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vectors_expand_per_element() {
        let (f, s) = expand_vectors(b"v=%v4d f=%v2hlf x=%5.2v3hd %%\n", &[16, 8, 8]);
        assert_eq!(
            String::from_utf8(f).unwrap(),
            "v=%d,%d,%d,%d f=%f,%f x=%5.2hd,%5.2hd,%5.2hd %%\n"
        );
        let plain = |n: usize, b: u32| std::iter::repeat_n((b, 0), n);
        let want: Vec<_> = plain(6, 4).chain(plain(2, 2)).chain([(2, 2)]).collect();
        assert_eq!(s, want);
    }

    /// Records the kernel corrupted are errors naming the record, never a panic.
    #[test]
    fn bad_records_are_errors() {
        let mut mem = DeviceMemory::new();
        let formats = [PrintfFormat::parse("1:1:4:%d\\n").unwrap()];
        let p = PrintfBuffer::allocate(&mut mem, &Arc::from(formats)).unwrap();
        let put = |mem: &DeviceMemory, words: &[u32]| {
            let b: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
            mem.write(p.base + HEADER, &b).unwrap();
            mem.write(p.base, &(b.len() as u32).to_le_bytes()).unwrap();
        };
        let mut out = DispatchOutput::default();
        put(&mem, &[1, 42, 1, 7]);
        p.drain(&mem, &mut out).unwrap();
        assert_eq!(out.stdout_text(), "42\n7\n");
        put(&mem, &[1, 5, 2, 9]);
        let e = p.drain(&mem, &mut out).unwrap_err();
        assert!(
            e.to_string().contains("record at byte 8: format id 2"),
            "{e}"
        );
        put(&mem, &[1]);
        let e = p.drain(&mem, &mut out).unwrap_err();
        assert!(
            e.to_string().contains("needs 4 argument bytes, 0 are left"),
            "{e}"
        );
        // A write offset past the buffer is clamped, not followed.
        mem.write(p.base, &u32::MAX.to_le_bytes()).unwrap();
        assert!(p.drain(&mem, &mut out).is_err());
        let hashed = [PrintfFormat::parse("0:0:ab,x=%d\n").unwrap()];
        let h = PrintfBuffer::allocate(&mut mem, &Arc::from(hashed)).unwrap();
        let rec: Vec<u8> = [(20u32 << 2) | 2, 0xab, 0, 3, 0]
            .iter()
            .flat_map(|w| w.to_le_bytes())
            .collect();
        mem.write(h.base + HEADER, &rec).unwrap();
        mem.write(h.base, &(rec.len() as u32).to_le_bytes())
            .unwrap();
        let mut out = DispatchOutput::default();
        h.drain(&mem, &mut out).unwrap();
        assert_eq!(out.stdout_text(), "x=3\n");
        mem.write(h.base + HEADER, &((400u32 << 2) | 2).to_le_bytes())
            .unwrap();
        assert!(h.drain(&mem, &mut out).is_err());
    }

    #[test]
    fn padded_strings() {
        assert_eq!(padded_string(b"hey\0\0\0\0\0xyz"), (b"hey".to_vec(), 8));
        assert_eq!(padded_string(b"12345678\0abc"), (b"12345678".to_vec(), 12));
        assert_eq!(padded_string(b"abc"), (b"abc".to_vec(), 3));
    }
}
