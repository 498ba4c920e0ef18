//! Reader of DiskSim drive descriptions. STUB: to be written.
