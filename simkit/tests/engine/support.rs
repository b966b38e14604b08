//! Shared test models.

use simkit::component::{Component, ComponentId, Ctx, Input};
use simkit::partition::Partitioning;
use simkit::time::Tick;

/// The partitionings every engine test runs under: sequential, and two threads.
pub fn layouts(n: usize) -> Vec<Partitioning> {
    vec![
        Partitioning::Single,
        Partitioning::Block(2.min(n.max(1))),
        Partitioning::RoundRobin(2.min(n.max(1))),
    ]
}

/// What a [`Recorder`] saw.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Seen {
    /// A message over a link, with its payload.
    Msg(u64),
    /// A message over a net, with sender and payload.
    Net(ComponentId, u64),
    /// A timer.
    Timer(u64),
    /// An external injection.
    External(u64),
    /// A clock tick.
    Tick,
}

/// Records every input with its time; sleeps after each tick.
#[derive(Debug, Default)]
pub struct Recorder {
    pub log: Vec<(Tick, Seen)>,
}

impl Component<u64> for Recorder {
    fn handle(&mut self, input: Input<u64>, ctx: &mut Ctx<'_, u64>) {
        let s = match input {
            Input::Message { msg, .. } => Seen::Msg(msg),
            Input::Net { from, msg, .. } => Seen::Net(from, msg),
            Input::Timer(m) => Seen::Timer(m),
            Input::External(m) => Seen::External(m),
            _ => return,
        };
        self.log.push((ctx.now(), s));
    }

    fn tick(&mut self, ctx: &mut Ctx<'_, u64>) -> simkit::component::Activity {
        self.log.push((ctx.now(), Seen::Tick));
        simkit::component::Activity::Sleep
    }

    fn save(&self) -> Result<Vec<u8>, simkit::checkpoint::CheckpointError> {
        Ok(Vec::new())
    }

    fn restore(&mut self, _: &[u8]) -> Result<(), simkit::checkpoint::CheckpointError> {
        Ok(())
    }
}

/// A unique temporary file path for this test process.
pub fn temp_path(name: &str) -> std::path::PathBuf {
    std::env::temp_dir().join(format!("simkit-test-{}-{name}", std::process::id()))
}
