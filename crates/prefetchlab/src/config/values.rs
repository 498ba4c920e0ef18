//! Value types of the configuration: sizes and durations that read either
//! a unit string (`"128KiB"`, `"5ms"`) or a plain integer (bytes, ns), and
//! write themselves back as integers so a resolved configuration is exact.

use serde::de::{self, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;

/// A size in bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Default)]
pub struct Size(pub u64);

/// A duration in nanoseconds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Default)]
pub struct Duration(pub u64);

impl Size {
    pub fn bytes(self) -> u64 {
        self.0
    }
    /// Whole 4 KiB pages (rounded down).
    pub fn pages(self) -> u64 {
        self.0 / crate::units::PAGE_BYTES
    }
}

impl Duration {
    pub fn ns(self) -> u64 {
        self.0
    }
}

impl Serialize for Size {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_u64(self.0)
    }
}

impl Serialize for Duration {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_u64(self.0)
    }
}

struct UnitVisitor {
    parse: fn(&str) -> Result<u64, String>,
    what: &'static str,
    /// The largest value, and what a larger one is told.
    max: u64,
    too_large: &'static str,
}

/// `2^64` as an `f64`: the first whole number that no longer fits in a `u64`.
const TWO_POW_64: f64 = 18_446_744_073_709_551_616.0;

impl UnitVisitor {
    fn at_most<E: de::Error>(&self, v: u64) -> Result<u64, E> {
        if v > self.max {
            Err(E::custom(format!("{v} {}", self.too_large)))
        } else {
            Ok(v)
        }
    }
}

impl Visitor<'_> for UnitVisitor {
    type Value = u64;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(self.what)
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<u64, E> {
        (self.parse)(v).map_err(E::custom)
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<u64, E> {
        self.at_most(v)
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<u64, E> {
        let v = u64::try_from(v).map_err(|_| E::custom(format!("must be >= 0, got {v}")))?;
        self.at_most(v)
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<u64, E> {
        if !(v >= 0.0 && v.fract() == 0.0) {
            Err(E::custom(format!("expected a whole non-negative number, got {v}")))
        } else if v >= TWO_POW_64 {
            Err(E::custom(format!("{v} {}", self.too_large)))
        } else {
            self.at_most(v as u64)
        }
    }
}

impl<'de> Deserialize<'de> for Size {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(UnitVisitor {
            parse: crate::units::parse_size,
            what: "a size such as \"128KiB\" or a number of bytes",
            max: u64::MAX,
            too_large: "does not fit in 64 bits of bytes (the largest is 16EiB - 1 byte)",
        })
        .map(Size)
    }
}

impl<'de> Deserialize<'de> for Duration {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(UnitVisitor {
            parse: crate::units::parse_duration,
            what: "a duration such as \"5ms\" or a number of nanoseconds",
            max: crate::units::MAX_DURATION_NS,
            too_large: crate::units::DURATION_TOO_LONG,
        })
        .map(Duration)
    }
}
