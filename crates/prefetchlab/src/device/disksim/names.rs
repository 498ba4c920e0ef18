//! The names of the parameters of a DiskSim 4.0 drive description, as its
//! module specifications declare them: the disk (`disksim_disk`), its queue
//! (`disksim_ioqueue`), the bus (`disksim_bus`), the `dm_disk` model, the
//! `dm_layout_g1`/`_g2`/`_g4` layouts and their zones, and the `dm_mech_g1`
//! mechanics. An override (`--override "NAME=VALUE"`, `disk.overrides`) must
//! name one of them; the reader suggests the closest name otherwise.

/// (name, takes a number): DiskSim's `I`/`D` parameters take a number; the
/// others (words, lists, blocks) cannot be overridden by a number.
pub const PARAMS: &[(&str, bool)] = &[
    ("Access time type", false),
    ("Add. write settling delay", true),
    ("Allow almost read hits", true),
    ("Allow read hits on write data", true),
    ("Allow sneaky full read hits", true),
    ("Allow sneaky intermediate read hits", true),
    ("Allow sneaky partial read hits", true),
    ("Allow write prebuffering", true),
    ("Arbitration time", true),
    ("Arbitration type", true),
    ("Average seek time", true),
    ("Avg sectors per cylinder", true),
    ("Block count", true),
    ("Blocks per track", true),
    ("Buffer continuous read", true),
    ("Bulk sector transfer time", true),
    ("Calc sector by sector", true),
    ("Combine seq writes", true),
    ("Constant access time", true),
    ("Constant seek time", true),
    ("Cylinder mapping strategy", true),
    ("Data preparation overhead", true),
    ("Disconnect write if seek", true),
    ("Empty space at zone front", true),
    ("Enable caching in buffer", true),
    ("Extra write disconnect", true),
    ("Extradisc 2nd disconnect overhead", true),
    ("Extradisc command overhead", true),
    ("Extradisc disconnect overhead", true),
    ("Extradisc inter-disconnect delay", true),
    ("Extradisc seek delta", true),
    ("Fast write level", true),
    ("First LBN", true),
    ("First cylinder number", true),
    ("First reselect overhead", true),
    ("First ten seek times", false),
    ("Full seek curve", false),
    ("Full strobe seek time", true),
    ("HPL seek equation values", false),
    ("Head switch time", true),
    ("High (read) water mark", true),
    ("Hold bus entire read xfer", true),
    ("Hold bus entire write xfer", true),
    ("IDX", false),
    ("Immed transfer partial hit", true),
    ("Immediate buffer read", true),
    ("Immediate buffer write", true),
    ("LBN-to-PBN mapping scheme", true),
    ("Last LBN", true),
    ("Last cylinder number", true),
    ("Layout Map File", false),
    ("Layout Model", false),
    ("Low (write) water mark", true),
    ("Max queue length", true),
    ("Maximum concat size", true),
    ("Maximum number of write segments", true),
    ("Maximum read-ahead (blks)", true),
    ("Mechanical Model", false),
    ("Minimum read-ahead (blks)", true),
    ("Minimum seek delay", true),
    ("Model", false),
    ("Never disconnect", true),
    ("Number of buffer segments", true),
    ("Number of cylinders", true),
    ("Number of data surfaces", true),
    ("Number of spares", true),
    ("Offset of first block", true),
    ("Other reselect overhead", true),
    ("Overlapping request scheme", true),
    ("Per-request overhead time", true),
    ("Percent error in rpms", true),
    ("Preseeking level", true),
    ("Print stats", true),
    ("Priority scheduling", true),
    ("Rangesize for sparing", true),
    ("Read any free blocks", true),
    ("Read block transfer time", true),
    ("Read completion overhead", true),
    ("Read directly to buffer", true),
    ("Read disconnect afterread", true),
    ("Read disconnect afterwrite", true),
    ("Read hit over. after read", true),
    ("Read hit over. after write", true),
    ("Read initiation delay", true),
    ("Read miss over. after read", true),
    ("Read miss over. after write", true),
    ("Read-ahead on idle hit", true),
    ("Read-ahead over requested", true),
    ("Remaps", false),
    ("Rotation speed (in rpms)", true),
    ("Scheduler", false),
    ("Scheduling policy", true),
    ("Scheduling priority scheme", true),
    ("Scheduling timeout scheme", true),
    ("Seek type", false),
    ("Segment size (in blks)", true),
    ("Sequential stream diff maximum", true),
    ("Sequential stream scheme", true),
    ("Set watermark by reqsize", true),
    ("Single cylinder seek time", true),
    ("Skew for cylinder switch", true),
    ("Skew for track switch", true),
    ("Skew units", false),
    ("Slips", false),
    ("Sparing scheme used", true),
    ("Stop prefetch in sector", true),
    ("TP", false),
    ("Time scale for overheads", true),
    ("Timeout scheduling", true),
    ("Timeout time/weight", true),
    ("Use separate write segment", true),
    ("Write block transfer time", true),
    ("Write completion overhead", true),
    ("Write disconnect overhead", true),
    ("Write hit over. after read", true),
    ("Write hit over. after write", true),
    ("Write hit stop prefetch", true),
    ("Write initiation delay", true),
    ("Write miss over. after read", true),
    ("Write miss over. after write", true),
    ("Zone Skew", true),
    ("Zones", false),
    ("defects", false),
    ("slips", false),
    ("type", true),
];

/// The DiskSim parameter called `name` (case-insensitive), with whether it
/// takes a number.
pub fn lookup(name: &str) -> Option<(&'static str, bool)> {
    PARAMS.iter().copied().find(|(n, _)| n.eq_ignore_ascii_case(name.trim()))
}

/// The DiskSim parameter name closest to `name` (edit distance, ignoring
/// case), if it is close enough to be a misspelling of it (at most a third
/// of its letters differ).
pub fn closest(name: &str) -> Option<&'static str> {
    let a: Vec<char> = name.trim().to_lowercase().chars().collect();
    PARAMS
        .iter()
        .map(|(n, _)| {
            let b: Vec<char> = n.to_lowercase().chars().collect();
            (distance(&a, &b), *n)
        })
        .min()
        .filter(|(d, n)| *d * 3 <= n.chars().count())
        .map(|(_, n)| n)
}

/// The block types whose parameters [`PARAMS`] lists: a drive and what it
/// is built of.
const DRIVE_BLOCKS: &[&str] = &[
    "disksim_disk",
    "disksim_ioqueue",
    "disksim_bus",
    "dm_disk",
    "dm_layout_g1",
    "dm_layout_g1_zone",
    "dm_layout_g2",
    "dm_layout_g4",
    "dm_mech_g1",
];

/// A warning for each parameter of a drive block (and the blocks inside
/// it) that DiskSim does not have: the reader passes over it, as DiskSim
/// does. An error instead where such a name, in a block the drive is read
/// from (`read_from`: the chosen disk, with the blocks inside it, and the
/// buses), is a misspelling of a parameter that none of those blocks sets
/// and no override gives: the drive would silently run without it (DiskSim
/// reports a missing required parameter and goes on without it). Other
/// blocks of the description (another disk of a library) only warn.
pub fn unknown_in(
    blocks: &[super::parse::Block],
    read_from: &[&super::parse::Block],
    overrides: &[(String, f64)],
    warnings: &mut Vec<String>,
) -> crate::error::Result<()> {
    let mut set: Vec<String> = overrides.iter().map(|(k, _)| k.trim().to_lowercase()).collect();
    for b in read_from {
        names_set_in(b, &mut set);
    }
    for b in blocks {
        let used = read_from.iter().any(|u| std::ptr::eq(*u, b));
        unknown_in_block(b, used.then_some(&set[..]), warnings)?;
    }
    Ok(())
}

/// Every parameter name (lower case) the drive blocks in `b` set.
fn names_set_in(b: &super::parse::Block, set: &mut Vec<String>) {
    let drive = DRIVE_BLOCKS.contains(&b.type_name.as_str());
    for p in &b.params {
        if drive {
            set.push(p.key.trim().to_lowercase());
        }
        for inner in blocks_in(&p.value) {
            names_set_in(inner, set);
        }
    }
}

/// The blocks a parameter's value holds, directly or in its lists.
fn blocks_in(value: &super::parse::Value) -> Vec<&super::parse::Block> {
    use super::parse::Value;
    let (mut out, mut nested) = (Vec::new(), vec![value]);
    while let Some(v) = nested.pop() {
        match v {
            Value::Block(inner) => out.push(inner),
            Value::List(items) => nested.extend(items.iter()),
            _ => {}
        }
    }
    out
}

/// The warnings of [`unknown_in`] for `b` and the blocks inside it, and,
/// given the names set in the blocks the drive is read from (`set`), its
/// errors.
fn unknown_in_block(
    b: &super::parse::Block,
    set: Option<&[String]>,
    warnings: &mut Vec<String>,
) -> crate::error::Result<()> {
    let drive = DRIVE_BLOCKS.contains(&b.type_name.as_str());
    for p in &b.params {
        if drive && lookup(&p.key).is_none() {
            let near = closest(&p.key);
            if let Some(n) = near.filter(|n| set.is_some_and(|set| !set.contains(&n.to_lowercase()))) {
                return Err(crate::error::Error::input(
                    b.path_str(),
                    p.line,
                    format!(
                        "`{}` is not a parameter of a DiskSim drive; did you mean `{n}`, which the drive's \
                         blocks do not set? (the drive would run without it)",
                        p.key.trim()
                    ),
                ));
            }
            let hint = near.map_or(String::new(), |n| format!(" (did you mean `{n}`?)"));
            warnings.push(format!(
                "{}:{}: `{}` is not a parameter of a DiskSim drive{hint}: ignored",
                b.path_str(),
                p.line,
                p.key.trim()
            ));
        }
        for inner in blocks_in(&p.value) {
            unknown_in_block(inner, set, warnings)?;
        }
    }
    Ok(())
}

/// Levenshtein distance.
fn distance(a: &[char], b: &[char]) -> usize {
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut cur = vec![0; b.len() + 1];
    for (i, ca) in a.iter().enumerate() {
        cur[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let sub = prev[j] + usize::from(ca != cb);
            cur[j + 1] = sub.min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    prev[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_found_and_misspellings_get_the_nearest() {
        assert_eq!(lookup("enable caching in buffer"), Some(("Enable caching in buffer", true)));
        assert_eq!(lookup("Seek type"), Some(("Seek type", false)));
        assert!(lookup("Bogus").is_none());
        assert_eq!(closest("Enable cachin in bufer"), Some("Enable caching in buffer"));
        assert_eq!(closest("head switch"), Some("Head switch time"));
        assert_eq!(closest("Bogus"), None);
    }
}
