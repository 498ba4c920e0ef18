//! Built-in drive presets (models.md §1.8). STUB: to be written.
