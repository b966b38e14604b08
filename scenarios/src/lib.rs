//! scenarios: RON scenario files and the library behind the `gfxsim` command line.
