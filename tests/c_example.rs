//! The C ABI from C: examples/c/stridekit_example.c (and the C snippet of docs/embedding.md) are
//! compiled with the system C compiler (`cc`, or $CC) against include/stridekit.h and
//! linked with libstridekit, once as the cdylib and once as the staticlib, then run. Every
//! check in the example fails the run. The library is built first with
//! `cargo build --lib` (the artifacts an integration test gets are the rlib's).

use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Builds the cdylib and staticlib (dev profile) and returns the directory holding them.
fn built_library() -> PathBuf {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let status = Command::new(cargo)
        .args(["build", "--lib", "--locked", "--quiet"])
        .current_dir(root())
        .status()
        .expect("cargo build --lib");
    assert!(status.success(), "cargo build --lib failed");
    let target = Path::new(env!("CARGO_TARGET_TMPDIR")).parent().unwrap();
    target.join("debug")
}

fn compiler() -> String {
    std::env::var("CC").unwrap_or_else(|_| "cc".into())
}

/// Compiles `source` (linking `how`: "shared" or "static") into `out`.
fn compile(source: &Path, lib: &Path, how: &str, out: &Path) {
    let mut cmd = Command::new(compiler());
    cmd.args(["-std=c11", "-Wall", "-Wextra", "-Werror", "-O1"])
        .arg(format!("-I{}", root().join("include").display()))
        .arg(source)
        .arg("-o")
        .arg(out);
    match how {
        "shared" => {
            cmd.arg(format!("-L{}", lib.display()))
                .arg(format!("-Wl,-rpath,{}", lib.display()))
                .arg("-lstridekit");
        }
        _ => {
            // The staticlib carries Rust's standard library; these are the system
            // libraries it needs (`rustc --print native-static-libs` on Linux).
            cmd.arg(lib.join("libstridekit.a")).args([
                "-lgcc_s",
                "-lutil",
                "-lrt",
                "-lpthread",
                "-lm",
                "-ldl",
                "-lc",
            ]);
        }
    }
    let o = cmd.output().expect("run the C compiler");
    assert!(
        o.status.success(),
        "{} failed on {}:\n{}",
        compiler(),
        source.display(),
        String::from_utf8_lossy(&o.stderr)
    );
}

fn run(exe: &Path) -> String {
    let o = Command::new(exe).output().unwrap();
    let stdout = String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(
        o.status.success(),
        "{} failed:\n{stdout}\n{}",
        exe.display(),
        String::from_utf8_lossy(&o.stderr)
    );
    stdout
}

#[test]
fn c_example_runs_against_the_cdylib_and_the_staticlib() {
    let lib = built_library();
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("c_example");
    std::fs::create_dir_all(&dir).unwrap();
    let source = root().join("examples/c/stridekit_example.c");
    for how in ["shared", "static"] {
        let exe = dir.join(format!("stridekit_example_{how}"));
        compile(&source, &lib, how, &exe);
        let out = run(&exe);
        for line in [
            "transpose: ok",
            "channels_last: ok",
            "conversions: ok",
            "plan reuse: ok (3 runs)",
            "row gather: ok",
            "allocator (sim): ok",
            "error: The size of tensor a (4) must match the size of tensor b (5) at non-singleton dimension 1",
            "error: unsupported operation: more than one element of the written-to tensor refers to a single memory location.",
            "error: allocator device 'tpu': expected cuda, cuda:N, sim or sim:BYTES",
            "all checks passed",
        ] {
            assert!(out.contains(line), "{how}: no '{line}' in:\n{out}");
        }
        if !stridekit::backend::cuda::driver_available() {
            assert!(out.contains("cuda: no CUDA driver"), "{out}");
            assert!(
                out.contains("torch allocator: CUDA driver library (libcuda) not found"),
                "{out}"
            );
        }
    }
}

/// C++ servers include the same header (cpp_compat: extern "C", no C-only constructs).
#[test]
fn header_compiles_as_cpp_and_links() {
    let lib = built_library();
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("c_example");
    std::fs::create_dir_all(&dir).unwrap();
    let source = dir.join("server.cpp");
    std::fs::write(
        &source,
        "#include <cstdio>\n#include \"stridekit.h\"\n\
         int main() {\n\
           StridekitAllocator* a = nullptr;\n\
           if (stridekit_allocator_new(\"sim\", nullptr, &a) != STRIDEKIT_OK) return 1;\n\
           void* p = nullptr;\n\
           int rc = stridekit_allocator_malloc(a, 1 << 20, nullptr, &p);\n\
           stridekit_allocator_destroy(a);\n\
           std::printf(\"%d %s\\n\", rc, stridekit_version());\n\
           return rc;\n\
         }\n",
    )
    .unwrap();
    let cxx = std::env::var("CXX").unwrap_or_else(|_| "c++".into());
    let exe = dir.join("server");
    let o = Command::new(&cxx)
        .args(["-std=c++17", "-Wall", "-Wextra", "-Werror"])
        .arg(format!("-I{}", root().join("include").display()))
        .arg(&source)
        .arg("-o")
        .arg(&exe)
        .arg(format!("-L{}", lib.display()))
        .arg(format!("-Wl,-rpath,{}", lib.display()))
        .arg("-lstridekit")
        .output()
        .expect("run the C++ compiler");
    assert!(
        o.status.success(),
        "{cxx}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(run(&exe).starts_with("0 v"));
}

/// The C block of docs/embedding.md (moved there from the README's "Use from C, Python and
/// PyTorch" section).
#[test]
fn embedding_page_c_snippet_runs() {
    let page = std::fs::read_to_string(root().join("docs/embedding.md")).unwrap();
    let start = page
        .find("```c\n")
        .expect("docs/embedding.md has a ```c block (C ABI over DLPack)");
    let body = &page[start + 5..];
    let snippet = &body[..body.find("```").unwrap()];
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("c_example");
    std::fs::create_dir_all(&dir).unwrap();
    let source = dir.join("readme.c");
    std::fs::write(&source, snippet).unwrap();
    let exe = dir.join("readme");
    compile(&source, &built_library(), "shared", &exe);
    let out = run(&exe);
    assert!(out.contains("y[1][0] = 1"), "{out}");
}
