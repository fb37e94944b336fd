//! Prints the Learnables entry of the customs agent's card: what
//! `#[derive(Learnable)]` makes of the example knowledge types.
//!
//! `cargo run --example declaration`

fn main() {
    let declaration = learnables_examples::customs_declaration();
    if let Err(violations) = declaration.validate() {
        eprintln!("the declaration breaks the spec:\n{violations}");
        std::process::exit(1);
    }
    match serde_json::to_string_pretty(&declaration.agent_extension()) {
        Ok(json) => println!("{json}"),
        Err(error) => {
            eprintln!("cannot write the declaration: {error}");
            std::process::exit(1);
        }
    }
}
