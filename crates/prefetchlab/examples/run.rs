//! Runs one configuration file and prints the report as JSON — the engine
//! without Python, for profiling: `cargo run --release --example run -- FILE.toml [key=value ...]`.

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(path) = args.first() else {
        eprintln!("usage: run CONFIG.toml [key=value ...]");
        std::process::exit(2);
    };
    let sets = args[1..].to_vec();
    match prefetchlab::Config::from_path(std::path::Path::new(path), &sets)
        .and_then(|c| prefetchlab::simulate(&c))
    {
        Ok(r) => println!("{}", r.to_json()),
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(2);
        }
    }
}
