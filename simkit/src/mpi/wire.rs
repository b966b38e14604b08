//! The byte format of messages between ranks: records of one destination partition's events.
//!
//! A record is `partition: u32, count: u32, bytes: u32` (little-endian), then `count` queued
//! events ([`Entry`]), `bytes` long: each its key's two words, destination and routing word
//! as fixed little-endian fields (24 bytes), then its payload as MessagePack. A rank's send buffer for another rank is
//! its workers' records one after the other; the receiver splits it by the header alone and
//! each destination worker decodes its own records.

use crate::event::{Entry, EventKey};
use serde::de::DeserializeOwned;
use serde::Serialize;

const HEADER: usize = 12;

/// Appends a record of `entries` (drained) for partition `part` to `buf`.
pub(crate) fn encode<M: Serialize>(
    part: u32,
    entries: &mut Vec<Entry<M>>,
    buf: &mut Vec<u8>,
) -> Result<(), String> {
    let at = buf.len();
    buf.extend_from_slice(&part.to_le_bytes());
    buf.extend_from_slice(&(entries.len() as u32).to_le_bytes());
    buf.extend_from_slice(&0u32.to_le_bytes());
    for e in entries.iter() {
        let (time, tie) = e.key.to_words();
        buf.extend_from_slice(&time.to_le_bytes());
        buf.extend_from_slice(&tie.to_le_bytes());
        buf.extend_from_slice(&e.dst.to_le_bytes());
        buf.extend_from_slice(&e.aux.to_le_bytes());
        rmp_serde::encode::write(buf, &e.payload).map_err(|e| e.to_string())?;
    }
    entries.clear();
    let len = buf.len() - at - HEADER;
    let len =
        u32::try_from(len).map_err(|_| format!("{len} bytes for one partition in one epoch"))?;
    buf[at + 8..at + HEADER].copy_from_slice(&len.to_le_bytes());
    Ok(())
}

fn word(b: &[u8], at: usize) -> u32 {
    let mut w = [0u8; 4];
    w.copy_from_slice(&b[at..at + 4]);
    u32::from_le_bytes(w)
}

fn dword(b: &[u8], at: usize) -> u64 {
    let mut w = [0u8; 8];
    w.copy_from_slice(&b[at..at + 8]);
    u64::from_le_bytes(w)
}

/// Bytes of an event before its payload.
const FIXED: usize = 24;

/// Splits `buf` into records: calls `each(partition, record)` with the whole record, header
/// included.
pub(crate) fn split(buf: &[u8], mut each: impl FnMut(u32, &[u8])) -> Result<(), String> {
    let mut at = 0;
    while at < buf.len() {
        if buf.len() - at < HEADER {
            return Err(format!("truncated record header at byte {at}"));
        }
        let len = word(buf, at + 8) as usize;
        let end = at + HEADER + len;
        if end > buf.len() {
            return Err(format!("record at byte {at} runs past the buffer"));
        }
        each(word(buf, at), &buf[at..end]);
        at = end;
    }
    Ok(())
}

/// Decodes every record in `buf` (as [`split`] hands them over) and gives each event to `sink`.
pub(crate) fn decode<M: DeserializeOwned>(
    buf: &[u8],
    mut sink: impl FnMut(Entry<M>),
) -> Result<(), String> {
    split(buf, |_, _| {})?;
    let mut at = 0;
    while at < buf.len() {
        let n = word(buf, at + 4);
        let len = word(buf, at + 8) as usize;
        let mut body = &buf[at + HEADER..at + HEADER + len];
        for _ in 0..n {
            if body.len() < FIXED {
                return Err("truncated event".to_owned());
            }
            let key = EventKey::from_words(dword(body, 0), dword(body, 8));
            let (dst, aux) = (word(body, 16), word(body, 20));
            body = &body[FIXED..];
            let mut de = rmp_serde::Deserializer::new(&mut body);
            let payload = M::deserialize(&mut de).map_err(|e| e.to_string())?;
            sink(Entry {
                key,
                dst,
                aux,
                payload,
            });
        }
        if !body.is_empty() {
            return Err(format!("{} bytes left over in a record", body.len()));
        }
        at += HEADER + len;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::{EventKey, Via};
    use crate::time::Tick;

    #[test]
    fn records_round_trip_and_split_by_partition() {
        let mk = |t: u64, dst: u32, p: u32| Entry {
            key: EventKey::from_words(t, t.wrapping_add(7)),
            dst,
            aux: Entry::<u32>::aux(Via::Net, 0),
            payload: p,
        };
        let mut buf = Vec::new();
        let mut a = vec![mk(5, 1, 10), mk(9, 2, 11)];
        encode(3, &mut a, &mut buf).unwrap();
        assert!(a.is_empty());
        encode(1, &mut vec![mk(Tick::MAX.0 - 1, 0, u32::MAX)], &mut buf).unwrap();
        let mut parts = Vec::new();
        split(&buf, |p, r| parts.push((p, r.len()))).unwrap();
        assert_eq!(parts.iter().map(|p| p.0).collect::<Vec<_>>(), vec![3, 1]);
        let mut got = Vec::new();
        decode::<u32>(&buf, |e| got.push((e.key.to_words(), e.dst, e.payload))).unwrap();
        assert_eq!(
            got,
            vec![
                ((5, 12), 1, 10),
                ((9, 16), 2, 11),
                (
                    (Tick::MAX.0 - 1, (Tick::MAX.0 - 1).wrapping_add(7)),
                    0,
                    u32::MAX
                )
            ]
        );
        // A cut buffer is an error, not a panic.
        assert!(decode::<u32>(&buf[..buf.len() - 1], |_| {}).is_err());
        assert!(split(&buf[..5], |_, _| {}).is_err());
    }
}
