//! The program's namespace and run state ([`Env`]): names in Python's dict order, the
//! output, warnings, the random generator, call depth and statement budget, the exceptions
//! in flight, and autograd's state.

use std::cell::{Cell, RefCell};

use super::value::Value;
use crate::bench::rng::SplitMix64;
use crate::error::{ErrorKind, Result, TensorError};
use crate::storage::Device;
use crate::tensor::Tensor;

/// The program's namespace: names in Python's dict order (a rebinding keeps its place,
/// `del` removes, a later binding appends).
/// How a `def` function is called: its parameters bound from `args`/`kwargs`, its body run.
pub(super) type CallDef =
    fn(&Env, &super::value::Function, Vec<Value>, &[(String, Value)]) -> Result<Value>;

/// A program's namespace and running state.
pub struct Env {
    vars: RefCell<Vec<(String, Value)>>,
    /// Where constructors (`torch.zeros`, ...) put their tensors.
    device: Device,
    /// Top-level statements run to completion.
    pub(super) done: Cell<usize>,
    /// The top-level statement running, and the line of the simple statement running.
    pub(super) statement: Cell<usize>,
    pub(super) line: Cell<usize>,
    /// What `print(...)` wrote.
    output: RefCell<String>,
    /// The generator behind `torch.rand/randn/randint` (`torch.manual_seed` reseeds it).
    rng: RefCell<SplitMix64>,
    /// Warnings about statements that ran.
    warnings: RefCell<Vec<Warning>>,
    /// Function and lambda calls in progress.
    pub(super) depth: Cell<usize>,
    /// Simple statements and loop tests left before the program is stopped.
    pub(super) budget: Cell<u64>,
    /// An exception leaving a function call, with its class and place, until the statement
    /// that called the function sees the error (see `super::exec`).
    pub(super) pending: RefCell<Option<super::exceptions::Exc>>,
    /// The exceptions being handled (`except` bodies running), innermost last.
    pub(super) handling: RefCell<Vec<super::exceptions::Exc>>,
    /// What the traceback of an error on its way to its statement keeps alive, with that
    /// error (taken into its [`super::exceptions::Exc::held`] there; see `super::exec`).
    pub(super) traceback: RefCell<Option<(crate::error::TensorError, Vec<Value>)>>,
    /// Autograd: which tensors require grad, the graph, grad mode.
    pub grad: super::autograd::State,
    /// Runs a `def` function's body (exec.rs's, set when a program starts running) for
    /// the expressions that call one: statements sit above expressions, so the evaluator
    /// reaches them through this instead of importing them.
    pub(super) call_def: Cell<Option<CallDef>>,
}

/// The deepest nesting of function and lambda calls (each level costs the interpreter's
/// stack; Python's own limit is 1000). Deeper recursion raises Python's RecursionError
/// (kind `other`, "maximum recursion depth exceeded"), which `except RecursionError` or
/// `except RuntimeError` catches.
pub const MAX_CALL_DEPTH: usize = 48;

/// The most simple statements and loop tests a program may run (a `while` that never ends
/// stops with kind `limit_exceeded` instead of hanging).
pub const MAX_EXECUTED: u64 = 1_000_000;

/// A statement that ran but whose result a reader should know more about.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Warning {
    /// The top-level statement, and the line of the simple statement inside it.
    pub statement: usize,
    pub line: usize,
    pub kind: &'static str,
    pub message: String,
}

/// The seed of the random generator before any `torch.manual_seed` (PyTorch's default seed).
pub const DEFAULT_SEED: u64 = 67280421310721;

impl Default for Env {
    fn default() -> Env {
        Env::on(Device::Cpu)
    }
}

impl Env {
    /// An empty namespace whose constructors make tensors on `device`.
    pub fn on(device: Device) -> Env {
        Env {
            vars: RefCell::new(Vec::new()),
            device,
            done: Cell::new(0),
            statement: Cell::new(0),
            line: Cell::new(0),
            output: RefCell::new(String::new()),
            rng: RefCell::new(SplitMix64(DEFAULT_SEED)),
            warnings: RefCell::new(Vec::new()),
            depth: Cell::new(0),
            budget: Cell::new(MAX_EXECUTED),
            pending: RefCell::new(None),
            handling: RefCell::new(Vec::new()),
            traceback: RefCell::new(None),
            grad: super::autograd::State::default(),
            call_def: Cell::new(None),
        }
    }

    pub fn device(&self) -> Device {
        self.device
    }

    /// What the program's `print(...)` calls wrote, as Python would print it.
    pub fn output(&self) -> String {
        self.output.borrow().clone()
    }

    /// How many top-level statements ran to completion.
    pub fn statements_run(&self) -> usize {
        self.done.get()
    }

    pub(super) fn get(&self, name: &str) -> Option<Value> {
        self.vars
            .borrow()
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.clone())
    }

    /// Runs `f` with the layer ops' view of the program ([`super::ctx::Ctx`]).
    pub(super) fn ctx<R>(&self, f: impl FnOnce(&super::ctx::Ctx) -> R) -> R {
        let warn = |kind: &'static str, message: String| self.warn(kind, message);
        let name_of = |t: &crate::tensor::Tensor| self.name_of(t);
        f(&super::ctx::Ctx {
            grad: &self.grad,
            device: self.device(),
            rng: &self.rng,
            warn: &warn,
            name_of: &name_of,
        })
    }

    /// The first global name bound to `t` itself (for messages).
    pub(super) fn name_of(&self, t: &crate::tensor::Tensor) -> Option<String> {
        self.vars
            .borrow()
            .iter()
            .find(|(_, v)| matches!(v, Value::Tensor(x) if x.id() == t.id()))
            .map(|(n, _)| n.clone())
    }

    pub(super) fn set(&self, name: &str, value: Value) {
        let mut vars = self.vars.borrow_mut();
        match vars.iter_mut().find(|(n, _)| n == name) {
            Some(slot) => slot.1 = value,
            None => vars.push((name.to_string(), value)),
        }
    }

    pub(super) fn remove(&self, name: &str) -> Result<()> {
        let mut vars = self.vars.borrow_mut();
        match vars.iter().position(|(n, _)| n == name) {
            Some(i) => {
                vars.remove(i);
                Ok(())
            }
            None => Err(name_error(name)),
        }
    }

    /// Live names bound to tensors, in namespace order.
    pub fn tensors(&self) -> Vec<(String, Tensor)> {
        self.vars
            .borrow()
            .iter()
            .filter_map(|(n, v)| match v {
                Value::Tensor(t) => Some((n.clone(), t.clone())),
                _ => None,
            })
            .collect()
    }

    /// Forgets the autograd state of tensors no name can reach any more.
    pub(super) fn prune_autograd(&self) {
        let live = super::autograd::calls::live_ids(self.vars.borrow().iter().map(|(_, v)| v));
        self.grad.prune(&live);
    }

    pub(super) fn write_output(&self, text: &str) {
        self.output.borrow_mut().push_str(text);
    }

    /// The warnings recorded so far, in statement order.
    pub fn warnings(&self) -> Vec<Warning> {
        self.warnings.borrow().clone()
    }

    /// Records a warning about the statement being run; a warning repeated on the same line
    /// (a loop) is kept once.
    pub(super) fn warn(&self, kind: &'static str, message: impl Into<String>) {
        let w = Warning {
            statement: self.statement.get(),
            line: self.line.get(),
            kind,
            message: message.into(),
        };
        let mut warnings = self.warnings.borrow_mut();
        if !warnings.contains(&w) {
            warnings.push(w);
        }
    }

    pub(super) fn rng(&self) -> std::cell::RefMut<'_, SplitMix64> {
        self.rng.borrow_mut()
    }

    /// Counts one simple statement or loop test against [`MAX_EXECUTED`].
    pub(super) fn tick(&self) -> Result<()> {
        match self.budget.get().checked_sub(1) {
            Some(left) => {
                self.budget.set(left);
                Ok(())
            }
            None => Err(TensorError::new(
                ErrorKind::LimitExceeded,
                format!(
                    "the program ran more than {MAX_EXECUTED} statements and loop tests \
                     (stridekit explain's limit; a loop that does not end?)"
                ),
            )),
        }
    }
}

pub(super) fn name_error(name: &str) -> TensorError {
    TensorError::new(ErrorKind::Other, format!("name '{name}' is not defined"))
}

impl super::ops::Host for Env {
    fn device(&self) -> Device {
        self.device
    }

    fn rng(&self) -> std::cell::RefMut<'_, SplitMix64> {
        Env::rng(self)
    }

    fn warn(&self, kind: &'static str, message: String) {
        Env::warn(self, kind, message)
    }
}
