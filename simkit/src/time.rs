//! Simulated time: picosecond ticks with saturating arithmetic, and clock domains.

use serde::{Deserialize, Serialize};
use std::fmt;
use std::ops::{Add, AddAssign, Sub};

/// A point in (or span of) simulated time, in picoseconds.
///
/// Arithmetic saturates: `Tick::MAX` means "never" and adding to it stays there, and
/// subtraction floors at zero, so time arithmetic can never wrap around into the past.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
#[serde(transparent)]
pub struct Tick(pub u64);

impl Tick {
    /// Time zero.
    pub const ZERO: Tick = Tick(0);
    /// The end of time; used for "never" and "no pending event".
    pub const MAX: Tick = Tick(u64::MAX);

    /// `ps` picoseconds.
    pub const fn from_ps(ps: u64) -> Tick {
        Tick(ps)
    }

    /// `ns` nanoseconds (saturating).
    pub const fn from_ns(ns: u64) -> Tick {
        Tick(ns.saturating_mul(1_000))
    }

    /// `us` microseconds (saturating).
    pub const fn from_us(us: u64) -> Tick {
        Tick(us.saturating_mul(1_000_000))
    }

    /// The raw picosecond count.
    pub const fn as_ps(self) -> u64 {
        self.0
    }

    /// `self + rhs`, saturating at `Tick::MAX`.
    pub const fn saturating_add(self, rhs: Tick) -> Tick {
        Tick(self.0.saturating_add(rhs.0))
    }

    /// `self - rhs`, saturating at zero.
    pub const fn saturating_sub(self, rhs: Tick) -> Tick {
        Tick(self.0.saturating_sub(rhs.0))
    }

    /// `self * n`, saturating at `Tick::MAX`.
    pub const fn saturating_mul(self, n: u64) -> Tick {
        Tick(self.0.saturating_mul(n))
    }
}

impl Add for Tick {
    type Output = Tick;
    fn add(self, rhs: Tick) -> Tick {
        self.saturating_add(rhs)
    }
}

impl AddAssign for Tick {
    fn add_assign(&mut self, rhs: Tick) {
        *self = self.saturating_add(rhs);
    }
}

impl Sub for Tick {
    type Output = Tick;
    fn sub(self, rhs: Tick) -> Tick {
        self.saturating_sub(rhs)
    }
}

impl fmt::Display for Tick {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if *self == Tick::MAX {
            f.write_str("never")
        } else {
            write!(f, "{}ps", self.0)
        }
    }
}

/// Errors building a clock domain.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ClockError {
    /// The frequency was zero or its period rounds to zero picoseconds (above 1 THz).
    #[error("clock frequency {hz} Hz has no whole-picosecond period")]
    BadFrequency {
        /// The requested frequency.
        hz: u64,
    },
    /// A period of zero picoseconds.
    #[error("clock period must be at least 1 ps")]
    ZeroPeriod,
    /// A derived domain with a zero multiplier or divider, or a period that rounds to zero.
    #[error("derived clock {mul}/{div} of a {period}ps clock has no whole-picosecond period")]
    BadRatio {
        /// The parent period in ps.
        period: u64,
        /// Frequency multiplier.
        mul: u64,
        /// Frequency divider.
        div: u64,
    },
}

/// A clock: edges at `phase + n * period` for n = 0, 1, 2, ...
///
/// Frequencies are turned into whole-picosecond periods (rounded to nearest), which is exact
/// for every clock that divides 1 THz and off by under 0.5 ps per cycle otherwise.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ClockDomain {
    period: Tick,
    phase: Tick,
}

impl ClockDomain {
    /// A clock with the given period (at least 1 ps) and the first edge at `phase`.
    pub fn new(period: Tick, phase: Tick) -> Result<ClockDomain, ClockError> {
        if period.0 == 0 {
            return Err(ClockError::ZeroPeriod);
        }
        Ok(ClockDomain { period, phase })
    }

    /// A clock of `hz` hertz with its first edge at zero.
    pub fn from_hz(hz: u64) -> Result<ClockDomain, ClockError> {
        if hz == 0 {
            return Err(ClockError::BadFrequency { hz });
        }
        let period = (1_000_000_000_000u64 + hz / 2) / hz;
        if period == 0 {
            return Err(ClockError::BadFrequency { hz });
        }
        Ok(ClockDomain {
            period: Tick(period),
            phase: Tick::ZERO,
        })
    }

    /// A clock of `mhz` megahertz with its first edge at zero.
    pub fn from_mhz(mhz: u64) -> Result<ClockDomain, ClockError> {
        ClockDomain::from_hz(mhz.saturating_mul(1_000_000))
    }

    /// A domain derived from this one running at `mul / div` times its frequency, with the
    /// same phase (so a 1/2 divided clock shares every other edge with its parent).
    pub fn derived(&self, mul: u64, div: u64) -> Result<ClockDomain, ClockError> {
        let bad = ClockError::BadRatio {
            period: self.period.0,
            mul,
            div,
        };
        if mul == 0 || div == 0 {
            return Err(bad);
        }
        let p = (self.period.0 as u128 * div as u128 + mul as u128 / 2) / mul as u128;
        if p == 0 || p > u64::MAX as u128 {
            return Err(bad);
        }
        Ok(ClockDomain {
            period: Tick(p as u64),
            phase: self.phase,
        })
    }

    /// The same clock with its first edge moved to `phase`.
    pub fn with_phase(self, phase: Tick) -> ClockDomain {
        ClockDomain { phase, ..self }
    }

    /// Time between edges.
    pub fn period(&self) -> Tick {
        self.period
    }

    /// Time of the first edge.
    pub fn phase(&self) -> Tick {
        self.phase
    }

    /// Frequency in hertz (rounded).
    pub fn hz(&self) -> u64 {
        (1_000_000_000_000u64 + self.period.0 / 2) / self.period.0
    }

    /// Time of edge number `n` (saturating).
    pub fn edge(&self, n: u64) -> Tick {
        self.phase.saturating_add(self.period.saturating_mul(n))
    }

    /// Number of edges strictly before `t`, i.e. the cycle count at time `t`.
    pub fn cycles_before(&self, t: Tick) -> u64 {
        if t <= self.phase {
            0
        } else {
            (t.0 - self.phase.0).div_ceil(self.period.0)
        }
    }

    /// The first edge at or after `t` (`Tick::MAX` if it would overflow).
    pub fn edge_at_or_after(&self, t: Tick) -> Tick {
        self.edge(self.cycles_before(t))
    }

    /// The first edge strictly after `t`.
    pub fn edge_after(&self, t: Tick) -> Tick {
        self.edge_at_or_after(t.saturating_add(Tick(1)))
    }

    /// Whether `t` falls exactly on an edge.
    pub fn is_edge(&self, t: Tick) -> bool {
        t >= self.phase && (t.0 - self.phase.0).is_multiple_of(self.period.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tick_arithmetic_saturates() {
        assert_eq!(Tick::MAX + Tick(1), Tick::MAX);
        assert_eq!(Tick(3) - Tick(5), Tick::ZERO);
        assert_eq!(Tick::from_ns(2), Tick(2000));
        assert_eq!(Tick::from_ns(u64::MAX), Tick::MAX);
        assert_eq!(Tick(7).saturating_mul(3), Tick(21));
    }

    #[test]
    fn frequencies_become_periods() {
        assert_eq!(ClockDomain::from_mhz(1000).unwrap().period(), Tick(1000));
        // 2.1 GHz: 476.19 ps rounds to 476.
        assert_eq!(ClockDomain::from_mhz(2100).unwrap().period(), Tick(476));
        assert_eq!(ClockDomain::from_mhz(2100).unwrap().hz(), 2_100_840_336);
        assert!(ClockDomain::from_hz(0).is_err());
        assert!(ClockDomain::from_hz(3_000_000_000_000).is_err());
        assert!(ClockDomain::new(Tick(0), Tick(0)).is_err());
    }

    #[test]
    fn edge_arithmetic() {
        let c = ClockDomain::new(Tick(10), Tick(3)).unwrap();
        assert_eq!(c.edge(0), Tick(3));
        assert_eq!(c.edge(4), Tick(43));
        assert_eq!(c.edge_at_or_after(Tick(0)), Tick(3));
        assert_eq!(c.edge_at_or_after(Tick(3)), Tick(3));
        assert_eq!(c.edge_at_or_after(Tick(4)), Tick(13));
        assert_eq!(c.edge_after(Tick(3)), Tick(13));
        assert_eq!(c.edge_after(Tick(12)), Tick(13));
        assert_eq!(c.cycles_before(Tick(3)), 0);
        assert_eq!(c.cycles_before(Tick(4)), 1);
        assert_eq!(c.cycles_before(Tick(13)), 1);
        assert_eq!(c.cycles_before(Tick(14)), 2);
        assert!(c.is_edge(Tick(23)) && !c.is_edge(Tick(24)) && !c.is_edge(Tick(0)));
        assert_eq!(c.edge(u64::MAX), Tick::MAX);
    }

    #[test]
    fn derived_domains_share_edges() {
        let fast = ClockDomain::from_mhz(2000).unwrap().with_phase(Tick(100));
        let half = fast.derived(1, 2).unwrap();
        assert_eq!(half.period(), Tick(1000));
        assert_eq!(half.phase(), Tick(100));
        for n in 0..10 {
            assert!(fast.is_edge(half.edge(n)));
        }
        let triple = fast.derived(3, 1).unwrap();
        assert_eq!(triple.period(), Tick(167));
        assert!(fast.derived(0, 1).is_err());
        assert!(fast.derived(1, 0).is_err());
        assert!(ClockDomain::new(Tick(1), Tick(0))
            .unwrap()
            .derived(3, 1)
            .is_err());
    }
}
