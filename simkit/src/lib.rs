//! simkit: a conservative parallel discrete-event simulation engine.
//!
//! A model is a graph of [`Component`](component::Component)s that exchange timed messages
//! over one-directional [links](port) with a latency, or over any-to-any nets with a minimum
//! latency. Setup is separate from running:
//!
//! ```text
//! TopologyBuilder --build--> Topology --SimInit::init--> Simulation --run/step--> ExitStatus
//!    components, ports,        validated     partitioning,       one worker thread
//!    links, nets, clocks                     lookahead           per partition
//! ```
//!
//! Partitions synchronize in conservative LBTS epochs with a lookahead window (see
//! [`engine`]); the same-time order of events is fixed by [`event::EventKey`], so a model
//! gives the same trace on any number of threads and any partitioning.
//!
//! ```
//! use simkit::component::{Component, Ctx, Input};
//! use simkit::engine::{CompletionReason, ExitStatus, SimInit};
//! use simkit::port::PortId;
//! use simkit::time::Tick;
//! use simkit::topology::TopologyBuilder;
//!
//! /// Bounces a counter back and forth until it reaches 10.
//! #[derive(Default)]
//! struct Player { out: Option<PortId>, seen: u32 }
//!
//! impl Component<u32> for Player {
//!     fn init(&mut self, ctx: &mut Ctx<'_, u32>) {
//!         self.out = ctx.port("out");
//!         if ctx.name() == "ping" {
//!             ctx.send(self.out.unwrap(), 0);
//!         }
//!     }
//!     fn handle(&mut self, input: Input<u32>, ctx: &mut Ctx<'_, u32>) {
//!         if let Input::Message { msg, .. } = input {
//!             self.seen += 1;
//!             if msg < 10 {
//!                 ctx.send(self.out.unwrap(), msg + 1);
//!             }
//!         }
//!     }
//! }
//!
//! let mut b = TopologyBuilder::new();
//! let ping = b.add("ping", Player::default()).unwrap();
//! let pong = b.add("pong", Player::default()).unwrap();
//! let (p_out, p_in) = (b.port(ping, "out").unwrap(), b.port(ping, "in").unwrap());
//! let (q_out, q_in) = (b.port(pong, "out").unwrap(), b.port(pong, "in").unwrap());
//! b.connect(p_out, q_in, Tick(100)).unwrap();
//! b.connect(q_out, p_in, Tick(100)).unwrap();
//! let mut sim = SimInit::new(b.build().unwrap()).init().unwrap();
//! let status = sim.run().unwrap();
//! // Messages 0..=10 each take 100 ps.
//! assert_eq!(
//!     status,
//!     ExitStatus::Completed { reason: CompletionReason::Quiescent, tick: Tick(1100) }
//! );
//! assert_eq!(sim.component::<Player>(pong).unwrap().seen, 6);
//! //! ```

pub mod checkpoint;
pub mod component;
pub mod engine;
pub mod epoch;
pub mod event;
pub mod handle;
#[cfg(feature = "mpi")]
pub mod mpi;
pub mod partition;
pub mod phold;
pub mod port;
pub mod stats;
pub(crate) mod sync;
pub mod time;
pub mod topology;
