//! Page cache. TODO
