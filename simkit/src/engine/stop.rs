//! Stops the model asks for (exit requests, the last primary's release): which one wins and
//! the status it ends the run with, the same on any number of partitions.

use super::worker::Core;
use super::{CompletionReason, ExitStatus, Simulation};
use crate::event::EventKey;
use crate::time::Tick;

/// The stop the model asked for that wins: the smaller by ordering key of the earliest exit
/// request and, once every primary has released, the last release.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ModelStop {
    /// An exit request made while handling the event with this key.
    Exit(EventKey),
    /// The last primary released while handling the event with this key; `None` when that
    /// was honored by an earlier run (the run completes at once).
    Released(Option<EventKey>),
}

impl ModelStop {
    /// The winner among the earliest exit request `exit` and the last release `released`
    /// (counted only if `all_released`).
    pub(crate) fn pick(
        exit: Option<EventKey>,
        all_released: bool,
        released: Option<EventKey>,
    ) -> Option<ModelStop> {
        match (exit, all_released, released) {
            (_, true, None) => Some(ModelStop::Released(None)),
            (Some(e), true, Some(r)) if r < e => Some(ModelStop::Released(Some(r))),
            (None, true, Some(r)) => Some(ModelStop::Released(Some(r))),
            (Some(e), _, _) => Some(ModelStop::Exit(e)),
            (None, false, _) => None,
        }
    }

    /// The first time not handled any more: the winner's time plus the exit horizon.
    pub(crate) fn cap(self, horizon: Tick) -> Tick {
        match self {
            ModelStop::Exit(k) | ModelStop::Released(Some(k)) => k.time().saturating_add(horizon),
            ModelStop::Released(None) => Tick::ZERO,
        }
    }
}

/// The stop partitions' pending requests call for, if any. `primaries` is the model's count.
pub(crate) fn model_stop<'a, M: 'a>(
    cores: impl Iterator<Item = &'a Core<M>> + Clone,
    primaries: u32,
) -> Option<ModelStop> {
    let exit = cores
        .clone()
        .filter_map(|c| c.exit.as_ref().map(|x| x.key))
        .min();
    let all_released = primaries > 0 && cores.clone().all(|c| c.held == 0);
    let released = cores.filter_map(|c| c.released).max();
    ModelStop::pick(exit, all_released, released)
}

impl<M: Send + 'static> Simulation<M> {
    /// The stop the model has asked for, if any.
    pub(crate) fn model_stop(&self) -> Option<ModelStop> {
        model_stop(self.parts.iter().map(|p| &p.core), self.tables.primaries)
    }

    /// Ends the run with the winning stop `s`: its status, and every pending request dropped
    /// (the losers were made after the winner; the primaries stay released).
    pub(crate) fn honor(&mut self, s: ModelStop) -> ExitStatus {
        let now = self.now();
        let status = match s {
            ModelStop::Exit(k) => {
                let x = self
                    .parts
                    .iter_mut()
                    .filter_map(|p| p.core.exit.take_if(|x| x.key == k))
                    .next();
                match x {
                    Some(x) => ExitStatus::ExitRequested {
                        reason: x.reason,
                        code: x.code,
                        tick: k.time(),
                    },
                    // The key came from these cores; this arm only keeps the code total.
                    None => ExitStatus::Interrupted { tick: now },
                }
            }
            ModelStop::Released(k) => ExitStatus::Completed {
                reason: CompletionReason::PrimariesReleased,
                tick: k.map_or(now, |k| k.time()),
            },
        };
        for p in &mut self.parts {
            p.core.exit = None;
            p.core.released = None;
            p.core.stop_at = Tick::MAX;
        }
        status
    }
}
