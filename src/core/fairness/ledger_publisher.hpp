#pragma once
// How the ledger and the closed lobbies are published: their origins, the key that signs
// their checkpoints, the witnesses the operator listed, and the cosignatures gathered.
// Pure: the witnesses are asked elsewhere (app/ledger_witnesses), which hands back what
// they cosigned.

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "core/base/bytes.hpp"
#include "core/fairness/checkpoint.hpp"
#include "core/fairness/signed_note.hpp"

namespace foyer::ledger {

struct witness_listing {
  std::string name;
  std::string vkey;  // c2sp.org/tlog-cosignature vkey
  std::string url;   // the tlog-witness endpoint's base: <url>/add-checkpoint
};

class publisher {
 public:
  // Throws std::invalid_argument for an origin that is not a valid key name.
  publisher(std::string origin, const note::seed& seed, std::vector<witness_listing> witnesses, std::size_t quorum);

  const std::string& origin() const { return origin_; }
  std::string vkey() const { return note::encode_vkey(signer_.public_part()); }
  const note::signer& signer() const { return signer_; }
  const std::vector<witness_listing>& witnesses() const { return witnesses_; }
  std::size_t quorum() const { return quorum_; }

  // The ledger's checkpoint at `size`/`root`, signed, with the cosignature lines gathered
  // for exactly that tree.
  std::string checkpoint(std::uint64_t size, const digest& root) const;
  // A closed lobby's checkpoint: origin "<origin>/lobby/<room>", signed by the same key
  // under that name (a log's key is named by its origin), whose vkey is lobby_vkey. A
  // lane's lobby (lane not "") is a log of its own: "<origin>/lobby/<room>/<lane>".
  std::string lobby_checkpoint(std::string_view room, std::string_view lane, std::uint64_t size,
                               const digest& root) const;
  std::string lobby_origin(std::string_view room, std::string_view lane = {}) const;
  std::string lobby_vkey(std::string_view room, std::string_view lane = {}) const;

  // The checkpoint of `size` entries with the cosignature lines the witnesses gave for it,
  // served in place of the bare one for that tree; only the newest is kept.
  void set_cosigned(std::uint64_t size, std::string note);

 private:
  std::string origin_;
  note::seed seed_;
  note::signer signer_;
  std::vector<witness_listing> witnesses_;
  std::size_t quorum_;
  std::uint64_t cosigned_size_ = 0;
  std::string cosigned_;
  // Signing costs more than serving: each tree is signed once.
  mutable std::map<std::pair<std::uint64_t, digest>, std::string> signed_;
};

}  // namespace foyer::ledger
