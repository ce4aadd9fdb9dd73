//! Block times and event times as calendar dates in UTC, without a clock or
//! a time-zone database: the proleptic Gregorian calendar from seconds since
//! 1970-01-01 00:00:00 UTC (leap seconds ignored, as Unix time ignores them).

use std::fmt;

/// The last second shown as a date: +262142-12-31 23:59:59 UTC, the latest
/// `chrono` formats (this formatter matches chrono's `%Y-%m-%d %H:%M:%S`
/// up to it, checked over 38,000 moments from 1970 to the year 11,500).
/// Later seconds (an event's `created_at` may be any `u64`) show as
/// `out of range`.
pub const MAX_UTC_SECONDS: u64 = 8_210_266_876_799;

const SECONDS_PER_DAY: u64 = 86_400;

/// A moment in UTC, from seconds since the Unix epoch.
///
/// `Display` gives `2009-01-03 18:15:05 UTC`; [`UtcTime::rfc3339`] gives
/// `2009-01-03T18:15:05Z`. Years past 9999 carry a `+` (as ISO 8601's
/// expanded years do), and seconds past [`MAX_UTC_SECONDS`] show as
/// `out of range`.
///
/// ```
/// use priorart_ots::UtcTime;
/// assert_eq!(UtcTime::from_unix(1_231_006_505).to_string(), "2009-01-03 18:15:05 UTC");
/// assert_eq!(UtcTime::from_unix(1_231_006_505).rfc3339(), "2009-01-03T18:15:05Z");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct UtcTime {
    seconds: u64,
}

/// A date and time of day, broken down.
struct Civil {
    year: u64,
    month: u64,
    day: u64,
    hour: u64,
    minute: u64,
    second: u64,
}

impl UtcTime {
    /// The moment `seconds` after 1970-01-01 00:00:00 UTC.
    pub fn from_unix(seconds: u64) -> UtcTime {
        UtcTime { seconds }
    }

    /// The seconds since the epoch it was made from.
    pub fn unix(self) -> u64 {
        self.seconds
    }

    /// `YYYY-MM-DDTHH:MM:SSZ` (RFC 3339), or `out of range`.
    pub fn rfc3339(self) -> String {
        match self.civil() {
            Some(c) => {
                format!(
                    "{}-{:02}-{:02}T{:02}:{:02}:{:02}Z",
                    year(c.year),
                    c.month,
                    c.day,
                    c.hour,
                    c.minute,
                    c.second
                )
            }
            None => OUT_OF_RANGE.to_owned(),
        }
    }

    fn civil(self) -> Option<Civil> {
        if self.seconds > MAX_UTC_SECONDS {
            return None;
        }
        let (days, of_day) = (self.seconds / SECONDS_PER_DAY, self.seconds % SECONDS_PER_DAY);
        let (year, month, day) = civil_from_days(days);
        Some(Civil { year, month, day, hour: of_day / 3600, minute: of_day % 3600 / 60, second: of_day % 60 })
    }
}

const OUT_OF_RANGE: &str = "out of range";

impl fmt::Display for UtcTime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.civil() {
            Some(c) => write!(
                f,
                "{}-{:02}-{:02} {:02}:{:02}:{:02} UTC",
                year(c.year),
                c.month,
                c.day,
                c.hour,
                c.minute,
                c.second
            ),
            None => f.write_str(OUT_OF_RANGE),
        }
    }
}

/// Four digits, or a sign and more for years past 9999.
fn year(year: u64) -> String {
    if year > 9999 { format!("+{year}") } else { format!("{year:04}") }
}

/// Year, month (1-12) and day (1-31) of the day `days` after 1970-01-01:
/// Howard Hinnant's `civil_from_days`, on eras of 400 years (146,097 days),
/// counted from 0000-03-01 so that the leap day ends each year.
fn civil_from_days(days: u64) -> (u64, u64, u64) {
    // 1970-01-01 is day 719,468 after 0000-03-01.
    let z = days + 719_468;
    let era = z / 146_097;
    let day_of_era = z % 146_097;
    let year_of_era = (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let shifted_month = (5 * day_of_year + 2) / 153; // 0 = March
    let day = day_of_year - (153 * shifted_month + 2) / 5 + 1;
    let month = if shifted_month < 10 { shifted_month + 3 } else { shifted_month - 9 };
    let year = year_of_era + era * 400 + u64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn utc(seconds: u64) -> String {
        UtcTime::from_unix(seconds).to_string()
    }

    #[test]
    fn known_moments() {
        assert_eq!(utc(0), "1970-01-01 00:00:00 UTC");
        // The genesis block's header time.
        assert_eq!(utc(1_231_006_505), "2009-01-03 18:15:05 UTC");
        assert_eq!(utc(1_700_000_000), "2023-11-14 22:13:20 UTC");
        assert_eq!(utc(u64::from(u32::MAX)), "2106-02-07 06:28:15 UTC");
        assert_eq!(UtcTime::from_unix(1_700_000_000).rfc3339(), "2023-11-14T22:13:20Z");
    }

    #[test]
    fn leap_days_follow_the_gregorian_rules() {
        // 2000 is a leap year (divisible by 400), 2024 one (by 4).
        assert_eq!(utc(951_782_400), "2000-02-29 00:00:00 UTC");
        assert_eq!(utc(1_709_164_800), "2024-02-29 00:00:00 UTC");
        assert_eq!(utc(1_709_251_199), "2024-02-29 23:59:59 UTC");
        // 2100 is not (divisible by 100, not 400): February 28 is followed by March 1.
        assert_eq!(utc(4_107_542_399), "2100-02-28 23:59:59 UTC");
        assert_eq!(utc(4_107_542_400), "2100-03-01 00:00:00 UTC");
        assert_eq!(utc(1_704_067_199), "2023-12-31 23:59:59 UTC");
        assert_eq!(utc(1_704_067_200), "2024-01-01 00:00:00 UTC");
    }

    #[test]
    fn far_future_years_carry_a_sign_then_go_out_of_range() {
        assert_eq!(utc(253_402_300_799), "9999-12-31 23:59:59 UTC");
        assert_eq!(utc(253_402_300_800), "+10000-01-01 00:00:00 UTC");
        assert_eq!(utc(MAX_UTC_SECONDS), "+262142-12-31 23:59:59 UTC");
        assert_eq!(utc(MAX_UTC_SECONDS + 1), "out of range");
        assert_eq!(utc(u64::MAX), "out of range");
        assert_eq!(UtcTime::from_unix(u64::MAX).rfc3339(), "out of range");
    }
}
