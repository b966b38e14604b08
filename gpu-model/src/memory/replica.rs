//! Device memory replicated over the ranks of a simulation spread over MPI processes
//! (feature `mpi`): at each memory sync point every rank sends what its compute units did
//! since the last one ([`Shipment`]) to every other rank, and every rank applies all of them
//! in one copy's order ([`Coherence::apply_shipments`]), so every replica holds the bytes a
//! single process's memory would.

use super::coherence::{Coherence, Shipment, ShipmentError};
use super::DeviceMemory;
use simkit::mpi::{DistError, SyncExchange};

/// Why a replicated sync point failed. Every rank gets the same error for an exchange
/// failure; a shipment that does not decode is reported by the rank that received it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ReplicaError {
    /// The exchange between ranks failed.
    #[error("memory exchange: {0}")]
    Exchange(#[from] DistError),
    /// The shipment from `rank` is malformed, or names what this SoC does not have.
    #[error("memory shipment from rank {rank}: {source}")]
    Shipment {
        /// The rank that sent it.
        rank: usize,
        /// What is wrong with it.
        source: ShipmentError,
    },
}

/// The sync point of a replica: takes this rank's shipment, exchanges it with every rank
/// through `ex` (so this runs inside a distributed run's sync-point hook, on every rank),
/// and applies all of them to `mem`. Nothing is applied unless every shipment decodes.
pub fn sync_replicas(
    coh: &Coherence,
    mem: &DeviceMemory,
    ex: &SyncExchange,
) -> Result<(), ReplicaError> {
    let me = ex.rank();
    let mine = coh
        .take_shipment()
        .to_bytes()
        .map_err(|source| ReplicaError::Shipment { rank: me, source })?;
    let all = ex.all_gather(&mine)?;
    let shipments = all
        .iter()
        .enumerate()
        .map(|(rank, b)| {
            Shipment::from_bytes(b).map_err(|source| ReplicaError::Shipment { rank, source })
        })
        .collect::<Result<Vec<_>, _>>()?;
    coh.apply_shipments(mem, &shipments, me)
        .map_err(|source| ReplicaError::Shipment { rank: me, source })
}
