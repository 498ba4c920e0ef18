//! Python bindings of the prefetchlab engine: type conversion only, no logic.
//!
//! Every engine error becomes `PrefetchlabError` with the engine's message
//! and its parts as attributes (`kind`, `key`, `detail`: see `engine_error`);
//! a panic (a bug) becomes the same exception, prefixed "internal error", so
//! nothing crashes across the boundary.

use prefetchlab::metrics::IoLog;
use prefetchlab::{Config, Error};
use pyo3::create_exception;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;

create_exception!(_engine, PrefetchlabError, PyValueError);

fn guarded<T>(f: impl FnOnce() -> Result<T, Error>) -> PyResult<T> {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(Ok(v)) => Ok(v),
        Ok(Err(e)) => Err(engine_error(&e)),
        Err(panic) => {
            let msg = panic
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_else(|| "unknown panic".into());
            Err(engine_error(&Error::Internal(msg)))
        }
    }
}

/// `PrefetchlabError` for an engine error: the one-line message, and as
/// attributes its `kind` (`"config"`, `"input"`, `"geometry"`, `"override"`,
/// `"cancelled"`, `"internal"`), the configuration `key` it is about (None
/// when it names none) and the `detail`, the message without what names the
/// key, so that a caller may say where the key came from without parsing
/// the text.
fn engine_error(e: &Error) -> PyErr {
    let (kind, key, detail) = match e {
        Error::Config { key, msg } => ("config", (!key.is_empty()).then_some(key.as_str()), msg.clone()),
        Error::Input { .. } => ("input", None, e.to_string()),
        Error::Geometry(msg) => ("geometry", None, msg.clone()),
        Error::Override(msg) => ("override", None, msg.clone()),
        Error::Cancelled => ("cancelled", None, e.to_string()),
        Error::Internal(_) => ("internal", None, e.to_string()),
    };
    let err = PrefetchlabError::new_err(e.to_string());
    Python::attach(|py| {
        let value = err.value(py);
        // setting attributes on a fresh exception does not fail; if it did, the
        // message alone would still be raised
        let _ = value.setattr("kind", kind);
        let _ = value.setattr("key", key);
        let _ = value.setattr("detail", detail);
    });
    err
}

fn parse(text: &str, fmt: &str, sets: &[String]) -> Result<Config, Error> {
    match fmt {
        "toml" => Config::from_toml(text, sets),
        "json" => Config::from_json(text, sets),
        "path" => Config::from_path(Path::new(text), sets),
        other => Err(Error::config("", format!("unknown configuration format `{other}`"))),
    }
}

fn le_bytes<T: Copy, const N: usize>(py: Python<'_>, v: &[T], to: fn(T) -> [u8; N]) -> Py<PyBytes> {
    let mut out = Vec::with_capacity(v.len() * N);
    for &x in v {
        out.extend_from_slice(&to(x));
    }
    PyBytes::new(py, &out).unbind()
}

fn io_log_dict<'py>(py: Python<'py>, log: &IoLog) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("rows", log.len())?;
    d.set_item("event_names", prefetchlab::metrics::IoEvent::NAMES.to_vec())?;
    d.set_item("time_ns", le_bytes(py, &log.time_ns, u64::to_le_bytes))?;
    d.set_item("event", PyBytes::new(py, &log.event))?;
    d.set_item("stream", le_bytes(py, &log.stream, i32::to_le_bytes))?;
    d.set_item("file", le_bytes(py, &log.file, i32::to_le_bytes))?;
    d.set_item("page", le_bytes(py, &log.page, i64::to_le_bytes))?;
    d.set_item("pages", le_bytes(py, &log.pages, i64::to_le_bytes))?;
    d.set_item("marker", le_bytes(py, &log.marker, i64::to_le_bytes))?;
    d.set_item("issued", le_bytes(py, &log.issued, i64::to_le_bytes))?;
    d.set_item("array_block", le_bytes(py, &log.array_block, i64::to_le_bytes))?;
    d.set_item("disk", le_bytes(py, &log.disk, i32::to_le_bytes))?;
    d.set_item("lba_sector", le_bytes(py, &log.lba_sector, i64::to_le_bytes))?;
    d.set_item("sectors", le_bytes(py, &log.sectors, i64::to_le_bytes))?;
    Ok(d)
}

/// Checks a configuration (with `stack`, also that its stack can be built:
/// drive model, geometry, files that fit, the trace readable); returns the
/// resolved configuration as JSON.
#[pyfunction]
#[pyo3(signature = (text, fmt, sets=vec![], stack=true))]
fn resolve(text: &str, fmt: &str, sets: Vec<String>, stack: bool) -> PyResult<String> {
    guarded(|| {
        let cfg = parse(text, fmt, &sets)?;
        if stack {
            prefetchlab::check(&cfg)?;
        }
        Ok(cfg.to_json())
    })
}

/// An experiment's base tree (JSON) with `--set` overrides applied as a
/// configuration's are (`KEY=VALUE`, the value read as TOML or else as a
/// string); the tree as JSON.
#[pyfunction]
fn apply_sets(tree_json: &str, sets: Vec<String>) -> PyResult<String> {
    guarded(|| prefetchlab::config::apply_sets_json(tree_json, &sets))
}

/// Runs a configuration. Returns `{"report": json, "io_log": dict | None}`.
///
/// `progress(sim_s, duration_s, requests_done, requests_total)` is called now
/// and then; Ctrl-C (or an exception from `progress`) stops the run.
#[pyfunction]
#[pyo3(signature = (text, fmt, sets=vec![], progress=None))]
fn simulate<'py>(
    py: Python<'py>,
    text: &str,
    fmt: &str,
    sets: Vec<String>,
    progress: Option<Py<PyAny>>,
) -> PyResult<Bound<'py, PyDict>> {
    let mut py_error: Option<PyErr> = None;
    let report = py.detach(|| {
        guarded(|| {
            let cfg = parse(text, fmt, &sets)?;
            prefetchlab::simulate_with_progress(&cfg, &mut |p| {
                Python::attach(|py| {
                    let r = py.check_signals().and_then(|_| match &progress {
                        Some(cb) => cb
                            .call1(
                                py,
                                (
                                    p.sim_ns as f64 * 1e-9,
                                    p.duration_ns as f64 * 1e-9,
                                    p.requests_done,
                                    p.requests_total,
                                ),
                            )
                            .map(|_| ()),
                        None => Ok(()),
                    });
                    match r {
                        Ok(()) => true,
                        Err(e) => {
                            py_error = Some(e);
                            false
                        }
                    }
                })
            })
        })
    });
    if let Some(e) = py_error {
        return Err(e);
    }
    let report = report?;
    let d = PyDict::new(py);
    d.set_item("report", report.to_json())?;
    match &report.io_log {
        Some(log) => d.set_item("io_log", io_log_dict(py, log)?)?,
        None => d.set_item("io_log", py.None())?,
    }
    Ok(d)
}

/// Replays a DiskSim validation trace; returns the figures as a dict.
#[pyfunction]
#[pyo3(signature = (spec, trace, overrides=vec![]))]
fn validate_disk<'py>(
    py: Python<'py>,
    spec: &str,
    trace: &str,
    overrides: Vec<(String, f64)>,
) -> PyResult<Bound<'py, PyDict>> {
    let v = py.detach(|| {
        guarded(|| prefetchlab::device::validate::validate(Path::new(spec), Path::new(trace), &overrides))
    })?;
    let d = PyDict::new(py);
    d.set_item("rms_ms", v.rms_ms)?;
    d.set_item("rms_exact_ms", v.rms_exact_ms)?;
    d.set_item("mean_sim_ms", v.mean_sim_ms)?;
    d.set_item("mean_real_ms", v.mean_real_ms)?;
    d.set_item("requests", v.requests)?;
    let classes = PyList::empty(py);
    for c in &v.classes {
        let r = PyDict::new(py);
        r.set_item("class", c.class)?;
        r.set_item("requests", c.requests)?;
        r.set_item("mean_sim_ms", c.mean_sim_ms)?;
        r.set_item("mean_real_ms", c.mean_real_ms)?;
        r.set_item("rms_exact_ms", c.rms_exact_ms)?;
        classes.append(r)?;
    }
    d.set_item("classes", classes)?;
    Ok(d)
}

/// One pass over a block trace: its statistics as a dict (see
/// `prefetchlab::trace::stats`). `format` None: told from the content.
/// `progress(records, file_bytes)` is called after each batch (from the engine's
/// thread, with the GIL).
#[pyfunction]
#[pyo3(signature = (path, format=None, block_bytes=4096, progress=None, blk_event="D", skip_bad=0))]
fn trace_stats<'py>(
    py: Python<'py>,
    path: &str,
    format: Option<&str>,
    block_bytes: u64,
    progress: Option<Bound<'py, PyAny>>,
    blk_event: &str,
    skip_bad: u64,
) -> PyResult<Bound<'py, PyDict>> {
    let (format, opts) = trace_options(format, blk_event, skip_bad, block_bytes)?;
    let mut progress = ProgressCallback::new(py, progress);
    let s = guarded(|| {
        prefetchlab::trace::stats::stats(Path::new(path), format, &opts, block_bytes, &mut |n, bytes| {
            progress.call(n, bytes)
        })
    });
    // an interruption (or the callback's error) first: it is why the pass stopped
    progress.finish()?;
    let s = s?;
    let d = PyDict::new(py);
    d.set_item("format", s.format.name())?;
    d.set_item("records", s.records)?;
    d.set_item("reads", s.reads)?;
    d.set_item("writes", s.writes)?;
    d.set_item("read_bytes", s.read_bytes)?;
    d.set_item("write_bytes", s.write_bytes)?;
    d.set_item("footprint_blocks", s.footprint_blocks)?;
    d.set_item("block_bytes", s.block_bytes)?;
    d.set_item("streams", s.streams)?;
    d.set_item("span_s", s.span_s)?;
    d.set_item("sequential_fraction", s.sequential_fraction)?;
    d.set_item("interleaved_sequential_fraction", s.interleaved_sequential_fraction)?;
    let sizes = PyList::empty(py);
    for (upto, n) in &s.sizes {
        sizes.append((*upto, *n))?;
    }
    d.set_item("sizes", sizes)?;
    d.set_item("skipped_records", s.skipped_records)?;
    d.set_item("first_skipped_line", s.first_skipped_line)?;
    d.set_item("out_of_order_records", s.out_of_order_records)?;
    d.set_item("max_step_back_s", s.max_step_back_s)?;
    d.set_item("first_out_of_order_line", s.first_out_of_order_line)?;
    Ok(d)
}

/// The format named `format` (None or `auto`: told from the content) and
/// the reading options (`block_bytes`: the block lcs-csv and oracleGeneral
/// number their objects in).
fn trace_options(
    format: Option<&str>,
    blk_event: &str,
    skip_bad: u64,
    block_bytes: u64,
) -> PyResult<(Option<prefetchlab::trace::Format>, prefetchlab::trace::ReadOptions)> {
    use prefetchlab::trace::{Format, ReadOptions};
    let opts = ReadOptions { skip_bad, block_bytes, ..guarded(|| ReadOptions::with_blk_event(blk_event))? };
    let format = match format {
        None | Some("auto") => None,
        Some(name) => Some(guarded(|| Format::from_name(name))?),
    };
    Ok((format, opts))
}

/// A Python progress callback called with the records and the file's bytes
/// read so far (compressed bytes of a compressed file); its first exception is
/// kept (and later calls skipped) to be raised when the work is done.
struct ProgressCallback<'py> {
    py: Python<'py>,
    callback: Option<Bound<'py, PyAny>>,
    error: Option<PyErr>,
}

impl<'py> ProgressCallback<'py> {
    fn new(py: Python<'py>, callback: Option<Bound<'py, PyAny>>) -> Self {
        ProgressCallback { py, callback, error: None }
    }
    /// Reports progress and lets Python's signal handlers run (Ctrl-C): whether
    /// to go on (no error from either).
    fn call(&mut self, records: u64, file_bytes: u64) -> bool {
        if self.error.is_none() {
            let r = self.py.check_signals().and_then(|_| match &self.callback {
                Some(cb) => cb.call1((records, file_bytes)).map(|_| ()),
                None => Ok(()),
            });
            if let Err(e) = r {
                self.error = Some(e);
            }
        }
        self.error.is_none()
    }
    fn finish(self) -> PyResult<()> {
        self.error.map_or(Ok(()), Err)
    }
}

/// Writes the trace at `path` to `out` as `to` (`lcs-csv`: libCacheSim's
/// csv, one line per `block_bytes` block; see `prefetchlab::trace::convert`).
/// Returns `{"format", "records", "blocks"}`.
#[pyfunction]
#[pyo3(signature = (path, out, to="lcs-csv", format=None, block_bytes=4096, progress=None, blk_event="D", skip_bad=0))]
#[allow(clippy::too_many_arguments)]
fn trace_convert<'py>(
    py: Python<'py>,
    path: &str,
    out: &str,
    to: &str,
    format: Option<&str>,
    block_bytes: u64,
    progress: Option<Bound<'py, PyAny>>,
    blk_event: &str,
    skip_bad: u64,
) -> PyResult<Bound<'py, PyDict>> {
    use prefetchlab::trace::{convert, open_file, RecordSource};
    if to != "lcs-csv" {
        return Err(PrefetchlabError::new_err(format!(
            "--to: unknown output format `{to}`: expected lcs-csv"
        )));
    }
    let (format, opts) = trace_options(format, blk_event, skip_bad, block_bytes)?;
    let mut progress = ProgressCallback::new(py, progress);
    let converted = guarded(|| {
        convert::not_the_input(Path::new(path), Path::new(out))?;
        let mut source = open_file(Path::new(path), format, &opts)?;
        let file = source.progress();
        let done = convert::to_lcs_csv(&mut source, block_bytes, Path::new(out), &mut |n| {
            progress.call(n, file.bytes_read())
        })?;
        Ok((source.format(), done))
    });
    progress.finish()?;
    let (fmt, done) = converted?;
    let d = PyDict::new(py);
    d.set_item("format", fmt.name())?;
    d.set_item("records", done.records)?;
    d.set_item("blocks", done.blocks)?;
    Ok(d)
}

/// A size such as `"4KiB"` (or digits: bytes) in bytes, as a configuration
/// reads it; `what` names it in the error.
#[pyfunction]
fn parse_size(text: &str, what: &str) -> PyResult<u64> {
    prefetchlab::units::parse_size(text).map_err(|m| PrefetchlabError::new_err(format!("{what}: {m}")))
}

/// The trace formats the readers know, by name (`auto` not among them).
#[pyfunction]
fn trace_formats() -> Vec<&'static str> {
    prefetchlab::trace::Format::ALL.iter().map(|f| f.name()).collect()
}

/// The configuration keys whose default is computed from other keys
/// (`readahead.max`, `sara.factor`, …): a resolved configuration holds the
/// value computed, to be dropped before another key of it is changed.
#[pyfunction]
fn computed_keys() -> Vec<&'static str> {
    prefetchlab::config::COMPUTED_KEYS.to_vec()
}

/// The unit of each key that holds a size, a rate or a duration as a plain
/// integer in a resolved configuration: `{"host.memory": "B", "workload.rate":
/// "B/s", "run.duration": "ns", …}`.
#[pyfunction]
fn key_units<'py>(py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
    use prefetchlab::config::{DURATION_KEYS, RATE_KEYS, SIZE_KEYS};
    let d = PyDict::new(py);
    for (keys, unit) in [(SIZE_KEYS, "B"), (RATE_KEYS, "B/s"), (DURATION_KEYS, "ns")] {
        for key in keys {
            d.set_item(key, unit)?;
        }
    }
    Ok(d)
}

/// What a built-in drive preset is: `{"name", "kind", "description",
/// "departures"}` (kind `disksim` or `datasheet`), or None.
#[pyfunction]
fn preset_info<'py>(py: Python<'py>, name: &str) -> PyResult<Option<Bound<'py, PyDict>>> {
    use prefetchlab::device::presets::{self, PresetKind};
    let Some(info) = presets::info(name) else { return Ok(None) };
    let d = PyDict::new(py);
    d.set_item("name", info.name)?;
    d.set_item(
        "kind",
        match info.kind {
            PresetKind::DiskSim => "disksim",
            PresetKind::Datasheet => "datasheet",
        },
    )?;
    d.set_item("description", info.description)?;
    let deps = PyList::empty(py);
    for dep in presets::departures(name) {
        let x = PyDict::new(py);
        x.set_item("param", dep.param)?;
        x.set_item("value", dep.value)?;
        x.set_item("reason", dep.reason)?;
        deps.append(x)?;
    }
    d.set_item("departures", deps)?;
    Ok(Some(d))
}

/// The files a DiskSim drive description reads (`disk.model` a path):
/// itself and everything it sources, its seek curve and layout map.
#[pyfunction]
fn drive_files(model: &str) -> PyResult<Vec<String>> {
    let files = guarded(|| prefetchlab::device::disksim::files_read(Path::new(model)))?;
    Ok(files.into_iter().map(|p| p.display().to_string()).collect())
}

/// What a drive is, for the caller to show (`prefetchlab drive`, the run
/// header): its geometry, mechanics, cache and queue as the description
/// sets them, its media and interface rates in MB/s
/// (`prefetchlab::device::hdd::DriveRates`; the interface None when the
/// description sets no interface time) and what the DiskSim reader
/// tolerated in it (`DriveParams::warnings`). `model` as `disk.model`
/// takes it.
#[pyfunction]
fn drive_facts<'py>(
    py: Python<'py>,
    model: &str,
    overrides: Vec<(String, f64)>,
) -> PyResult<Bound<'py, PyDict>> {
    let p = guarded(|| prefetchlab::device::hdd::drive_params(model, &overrides))?;
    let r = p.rates();
    let lay = &p.layout;
    let d = PyDict::new(py);
    d.set_item("name", &p.name)?;
    d.set_item("capacity_sectors", lay.capacity_sectors)?;
    d.set_item("surfaces", lay.surfaces)?;
    d.set_item("cylinders", lay.cylinders)?;
    d.set_item("rpm", p.rpm)?;
    d.set_item("spt_outer", r.spt_outer)?;
    d.set_item("spt_inner", r.spt_inner)?;
    d.set_item("media_outer_mb_s", r.media_outer_mb_s)?;
    d.set_item("media_inner_mb_s", r.media_inner_mb_s)?;
    d.set_item("interface_mb_s", r.interface_mb_s)?;
    d.set_item("interface_ms_per_sector", p.xfer_read_ms)?;
    d.set_item("seek_single_ms", p.seek.ms(1))?;
    d.set_item("seek_mean_random_ms", p.seek.mean_random_ms(lay.cylinders))?;
    d.set_item("seek_full_ms", p.seek.ms(lay.cylinders.saturating_sub(1).max(1)))?;
    d.set_item("head_switch_ms", p.head_switch_ms)?;
    d.set_item("cache_enabled", p.cache.enabled)?;
    d.set_item("cache_segments", p.cache.segments)?;
    d.set_item("cache_segment_sectors", p.cache.segment_blocks)?;
    d.set_item("max_readahead_sectors", p.cache.max_readahead)?;
    d.set_item("queue_length", p.queue.max_queue_length)?;
    d.set_item("warnings", &p.warnings)?;
    Ok(d)
}

/// The built-in drive preset names.
#[pyfunction]
fn preset_names() -> Vec<&'static str> {
    prefetchlab::device::presets::NAMES.to_vec()
}

/// IPODS's plan (algorithms.md §8.2) from its parameters, durations as
/// text: `{pstart, pnext_offset, depth, horizon_hdd, max_bw_needed,
/// stall_ss_ns}`.
#[pyfunction]
fn ipods_plan<'py>(
    py: Python<'py>,
    max_bw: u32,
    x_cache: u32,
    times: [String; 4],
) -> PyResult<Bound<'py, PyDict>> {
    use prefetchlab::policy::informed::ipods;
    let (params, plan) = guarded(|| {
        let p = ipods::Params::parse(max_bw, x_cache, [&times[0], &times[1], &times[2], &times[3]])?;
        Ok((p, ipods::plan(&p)?))
    })?;
    let d = PyDict::new(py);
    d.set_item("pstart", plan.pstart)?;
    d.set_item("pnext_offset", plan.pnext_offset)?;
    d.set_item("depth", plan.depth)?;
    d.set_item("horizon_hdd", plan.horizon_hdd)?;
    d.set_item("max_bw_needed", plan.max_bw_needed)?;
    d.set_item("stall_ss_ns", params.stall_ss_ns())?;
    Ok(d)
}

/// The step-level model of IPODS (or TIP alone, `ipods = False`) over
/// `blocks` hinted blocks: `{elapsed_ns, stall_ns, accesses: {block,
/// fetch_ns, from_ssd, arrival_ns, consumed_ns, stall_ns} as lists, copies:
/// {block, start_ns, arrival_ns} as lists}`.
#[pyfunction]
fn ipods_timeline<'py>(
    py: Python<'py>,
    max_bw: u32,
    x_cache: u32,
    times: [String; 4],
    blocks: u64,
    ipods: bool,
) -> PyResult<Bound<'py, PyDict>> {
    use prefetchlab::policy::informed::ipods as model;
    let t = guarded(|| {
        let p = model::Params::parse(max_bw, x_cache, [&times[0], &times[1], &times[2], &times[3]])?;
        model::timeline(&p, blocks, ipods)
    })?;
    timeline_dict(py, &t)
}

/// A timeline as a dict of lists: `{elapsed_ns, stall_ns, accesses: {block,
/// fetch_ns, from_ssd, arrival_ns, consumed_ns, stall_ns}, copies: {block,
/// start_ns, arrival_ns}}`.
fn timeline_dict<'py>(
    py: Python<'py>,
    t: &prefetchlab::policy::informed::ipods::Timeline,
) -> PyResult<Bound<'py, PyDict>> {
    use prefetchlab::policy::informed::ipods as model;
    let a = PyDict::new(py);
    a.set_item("block", t.accesses.iter().map(|x| x.block).collect::<Vec<_>>())?;
    a.set_item("fetch_ns", t.accesses.iter().map(|x| x.fetch_ns).collect::<Vec<_>>())?;
    a.set_item("from_ssd", t.accesses.iter().map(|x| x.source == model::Source::Ssd).collect::<Vec<_>>())?;
    a.set_item("arrival_ns", t.accesses.iter().map(|x| x.arrival_ns).collect::<Vec<_>>())?;
    a.set_item("consumed_ns", t.accesses.iter().map(|x| x.consumed_ns).collect::<Vec<_>>())?;
    a.set_item("stall_ns", t.accesses.iter().map(|x| x.stall_ns).collect::<Vec<_>>())?;
    let c = PyDict::new(py);
    c.set_item("block", t.copies.iter().map(|x| x.block).collect::<Vec<_>>())?;
    c.set_item("start_ns", t.copies.iter().map(|x| x.start_ns).collect::<Vec<_>>())?;
    c.set_item("arrival_ns", t.copies.iter().map(|x| x.arrival_ns).collect::<Vec<_>>())?;
    let d = PyDict::new(py);
    d.set_item("elapsed_ns", t.elapsed_ns)?;
    d.set_item("stall_ns", t.stall_ns)?;
    d.set_item("accesses", a)?;
    d.set_item("copies", c)?;
    Ok(d)
}

/// The timeline of a `[topology]` run of the configuration (`text` in
/// `fmt`): the same dict as [`ipods_timeline`], plus `metrics` (the run's
/// metrics as JSON).
#[pyfunction]
fn topology_timeline<'py>(
    py: Python<'py>,
    text: &str,
    fmt: &str,
    sets: Vec<String>,
) -> PyResult<Bound<'py, PyDict>> {
    let (report, t) = py.detach(|| {
        guarded(|| {
            let cfg = parse(text, fmt, &sets)?;
            prefetchlab::topology::run_with_timeline(&cfg)
        })
    })?;
    let d = timeline_dict(py, &t)?;
    d.set_item("metrics", report.to_json())?;
    Ok(d)
}

#[pymodule]
fn _engine(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("PrefetchlabError", m.py().get_type::<PrefetchlabError>())?;
    m.add("__version__", prefetchlab::VERSION)?;
    m.add("engine_build", prefetchlab::ENGINE_BUILD)?;
    m.add("EXACT_LATENCIES", prefetchlab::metrics::EXACT_LATENCIES)?;
    m.add_function(wrap_pyfunction!(resolve, m)?)?;
    m.add_function(wrap_pyfunction!(apply_sets, m)?)?;
    m.add_function(wrap_pyfunction!(simulate, m)?)?;
    m.add_function(wrap_pyfunction!(validate_disk, m)?)?;
    m.add_function(wrap_pyfunction!(preset_info, m)?)?;
    m.add_function(wrap_pyfunction!(preset_names, m)?)?;
    m.add_function(wrap_pyfunction!(drive_facts, m)?)?;
    m.add_function(wrap_pyfunction!(drive_files, m)?)?;
    m.add_function(wrap_pyfunction!(trace_stats, m)?)?;
    m.add_function(wrap_pyfunction!(trace_convert, m)?)?;
    m.add_function(wrap_pyfunction!(trace_formats, m)?)?;
    m.add_function(wrap_pyfunction!(computed_keys, m)?)?;
    m.add_function(wrap_pyfunction!(key_units, m)?)?;
    m.add_function(wrap_pyfunction!(parse_size, m)?)?;
    m.add_function(wrap_pyfunction!(ipods_plan, m)?)?;
    m.add_function(wrap_pyfunction!(ipods_timeline, m)?)?;
    m.add_function(wrap_pyfunction!(topology_timeline, m)?)?;
    Ok(())
}
