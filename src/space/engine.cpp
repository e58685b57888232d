#include "space/engine.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace hone::space_detail {
namespace {

// Ascending order: LSD radix sort over the `bits` bits of the codes, in as few passes as digits
// of at most 16 bits allow, each digit no wider than the list is long (a count table larger
// than the list costs more than the list). The enumeration produces codes in its binding
// order, which differs from the canonical order when the plan reorders.
template <class Code>
void sort_codes(std::vector<Code>& v, unsigned bits) {
    if (std::is_sorted(v.begin(), v.end())) return;
    if (v.size() < (1u << 10) || bits == 0) {
        std::sort(v.begin(), v.end());
        return;
    }
    unsigned widest = 8;
    while (widest < 16 && (std::size_t{1} << (widest + 1)) <= v.size()) ++widest;
    const unsigned passes = (bits + widest - 1) / widest;
    const unsigned digit = (bits + passes - 1) / passes;
    const uint64_t mask = (uint64_t{1} << digit) - 1;
    std::vector<Code> tmp(v.size());
    std::vector<std::size_t> count(std::size_t{1} << digit);
    for (unsigned shift = 0; shift < bits; shift += digit) {
        std::fill(count.begin(), count.end(), 0);
        for (const Code x : v) ++count[(static_cast<uint64_t>(x) >> shift) & mask];
        std::size_t sum = 0;
        for (auto& c : count) {
            const std::size_t n = c;
            c = sum;
            sum += n;
        }
        for (const Code x : v) tmp[count[(static_cast<uint64_t>(x) >> shift) & mask]++] = x;
        v.swap(tmp);
    }
}

unsigned bit_width(uint64_t x) {
    return x == 0 ? 0 : 64 - static_cast<unsigned>(__builtin_clzll(x));
}

}  // namespace

uint64_t draw_below(std::mt19937_64& rng, uint64_t n) {
    const uint64_t limit = UINT64_MAX - UINT64_MAX % n;
    uint64_t x = rng();
    while (x >= limit) x = rng();
    return x % n;
}

engine::engine(const spec& s, const bindings& base, const engine_limits& lim)
    : lim_(lim), model_(std::make_unique<constraint_model>(s, base)), plan_(make_plan(*model_)) {
    const std::size_t n = model_->dims();
    stride_.assign(n, 0);
    for (std::size_t d = n; d-- > 0;) {
        stride_[d] = total_;
        if (__builtin_mul_overflow(total_, uint64_t{model_->card(d)}, &total_)) {
            codes_fit_ = false;
            total_ = UINT64_MAX;
            break;
        }
    }
    for (uint32_t d : plan_.free) free_product_ *= model_->card(d);
    build_prefixes();
    if (prefix_depth_ == plan_.order.size()) {
        // Every partial configuration was checked: one whose constraint failed to evaluate is
        // an error now, as the enumeration would raise it.
        for (std::size_t i = 0; i < prefixes_.size(); ++i) {
            if (prefix_pending_[i] == 0) continue;
            point p(model_->dims(), 0);
            std::vector<slot_value> slots(model_->dims());
            load_prefix(i, p, slots.data());
            model_->admits(p);
        }
        first_.exact = true;
        first_.valid = static_cast<double>(prefixes_.size()) * free_product_;
        exact_valid_ = prefixes_.size();
        for (uint32_t d : plan_.free)
            if (__builtin_mul_overflow(
                    exact_valid_, static_cast<unsigned __int128>(model_->card(d)), &exact_valid_))
                exact_valid_ = ~static_cast<unsigned __int128>(0);
    } else {
        // Enough draws to decide whether listing is affordable; the count of a space too
        // large to list is refined by the caller.
        first_ = sample_estimate(20000, 1000, lim_.seed);
    }
}

void engine::build_prefixes() {
    const std::size_t n = model_->dims();
    std::vector<slot_value> slots(n);
    point p(n, 0);
    int root_pending = 0;
    for (uint32_t c : plan_.always) {
        const verdict v = model_->check(c, p, slots.data());
        if (v == verdict::fail) root_rejected_ = true;
        root_pending += v == verdict::error;
    }
    if (root_rejected_) {  // no configuration at all
        prefix_depth_ = plan_.order.size();
        return;
    }
    prefixes_ = {0};
    prefix_pending_ = {static_cast<uint8_t>(std::min(root_pending, 255))};
    uint64_t local = 1;  // the product of the cardinalities in the table's radix
    std::vector<uint64_t> next;
    std::vector<uint8_t> next_pending;
    while (prefix_depth_ < plan_.order.size()) {
        const uint32_t d = plan_.order[prefix_depth_];
        const uint32_t card = model_->card(d);
        uint64_t next_local = 0;
        if (__builtin_mul_overflow(local, uint64_t{card}, &next_local) ||
            next_local > (uint64_t{1} << 62))
            break;
        next.clear();
        next_pending.clear();
        bool over = false;
        cursor cur = make_cursor();
        for (std::size_t i = 0; i < prefixes_.size() && !over; ++i) {
            const int pending = load_prefix(i, p, slots.data(), &cur);
            for (uint32_t v = 0; v < card; ++v) {
                p[d] = v;
                slots[d] = model_->value_slot(d, v);
                int pv = pending;
                const bool ok = passes(prefix_depth_, p, slots.data(), &pv);
                if (!ok) continue;
                next.push_back(prefixes_[i] * card + v);
                next_pending.push_back(static_cast<uint8_t>(std::min(pv, 255)));
                if (next.size() > lim_.prefix_cap) {
                    over = true;
                    break;
                }
            }
        }
        if (over) break;
        prefixes_.swap(next);
        prefix_pending_.swap(next_pending);
        ++prefix_depth_;
        local = next_local;
        if (prefixes_.empty()) {  // nothing valid: the table is complete and empty
            prefix_depth_ = plan_.order.size();
            break;
        }
    }
    std::vector<uint64_t>().swap(next);
}

int engine::load_prefix(std::size_t i, point& p, slot_value* slots, cursor* cur) const {
    uint64_t code = prefixes_[i];
    for (std::size_t l = prefix_depth_; l-- > 0;) {
        if (cur) {
            // Codes are the digits of the levels in mixed radix: the same rest means the same
            // digits from here down, already in `p` and `slots`.
            if (cur->quotient[l] == code) break;
            cur->quotient[l] = code;
        }
        const uint32_t d = plan_.order[l];
        const auto idx = static_cast<uint32_t>(code % model_->card(d));
        code /= model_->card(d);
        p[d] = idx;
        slots[d] = model_->value_slot(d, idx);
    }
    return prefix_pending_[i];
}

bool engine::trial(std::mt19937_64& rng, point& p, slot_value* slots,
                   std::vector<uint64_t>* reach) const {
    if (prefixes_.empty()) return false;
    int pending = load_prefix(draw_below(rng, prefixes_.size()), p, slots);
    for (std::size_t l = prefix_depth_; l < plan_.order.size(); ++l) {
        const uint32_t d = plan_.order[l];
        const auto v = static_cast<uint32_t>(draw_below(rng, model_->card(d)));
        p[d] = v;
        slots[d] = model_->value_slot(d, v);
        if (reach) ++(*reach)[l];
        if (!passes(l, p, slots, &pending)) return false;
    }
    for (uint32_t d : plan_.free) p[d] = static_cast<uint32_t>(draw_below(rng, model_->card(d)));
    return pending == 0 || model_->admits(p);
}

std::optional<point> engine::draw(std::mt19937_64& rng, uint64_t max_tries) const {
    point p(model_->dims(), 0);
    std::vector<slot_value> slots(model_->dims());
    for (uint64_t t = 0; t < max_tries; ++t)
        if (trial(rng, p, slots.data(), nullptr)) return p;
    return std::nullopt;
}

estimate engine::sample_estimate(uint64_t max_draws, uint64_t accepted_goal, uint64_t seed) const {
    estimate e;
    if (prefixes_.empty()) {
        e.exact = true;
        return e;
    }
    std::mt19937_64 rng(seed);
    const std::size_t levels = plan_.order.size();
    std::vector<uint64_t> reach(levels, 0);
    point p(model_->dims(), 0);
    std::vector<slot_value> slots(model_->dims());
    while (e.draws < max_draws && e.accepted < accepted_goal) {
        ++e.draws;
        if (trial(rng, p, slots.data(), &reach)) ++e.accepted;
    }
    // Each draw is uniform over (prefix, values of the later levels, free values): the share
    // accepted times the size of that product is the number of valid configurations, and the
    // share reaching level l estimates the valid partial configurations before it.
    const double draws = static_cast<double>(e.draws);
    double product = static_cast<double>(prefixes_.size());
    for (std::size_t l = prefix_depth_; l < levels; ++l) {
        const double card = model_->card(plan_.order[l]);
        e.nodes += product * (static_cast<double>(reach[l]) / draws) * card;
        product *= card;
    }
    const double share = static_cast<double>(e.accepted) / draws;
    e.valid = product * free_product_ * share;
    e.rel_error95 = e.accepted == 0 ? std::numeric_limits<double>::infinity()
                                    : 1.96 * std::sqrt((1 - share) / (draws * share));
    return e;
}

template <class Code>
std::optional<std::vector<Code>> engine::enumerate() const {
    if (!codes_fit_ || free_product_ > static_cast<double>(lim_.max_listed)) return std::nullopt;
    const std::size_t n = model_->dims(), levels = plan_.order.size();
    // Every combination of the free parameters, as an offset to add to a code.
    std::vector<uint64_t> offsets = {0};
    for (uint32_t d : plan_.free) {
        std::vector<uint64_t> grown;
        grown.reserve(offsets.size() * model_->card(d));
        for (uint64_t o : offsets)
            for (uint32_t v = 0; v < model_->card(d); ++v) grown.push_back(o + v * stride_[d]);
        offsets.swap(grown);
    }
    std::sort(offsets.begin(), offsets.end());
    std::vector<Code> out;
    if (first_.valid <= static_cast<double>(lim_.max_listed))
        out.reserve(static_cast<std::size_t>(first_.valid * 1.05) + 16);
    bool over = false;
    auto emit = [&](uint64_t code, int pending) {
        if (pending > 0 && !model_->admits(decode(code))) return;
        if (out.size() + offsets.size() > lim_.max_listed) {
            over = true;
            return;
        }
        for (uint64_t o : offsets) out.push_back(static_cast<Code>(code + o));
    };
    point p(n, 0);
    std::vector<slot_value> slots(n);
    std::vector<uint32_t> idx(levels + 1, 0);
    std::vector<uint64_t> code(levels + 1, 0);
    std::vector<int> pend(levels + 1, 0);
    uint64_t nodes = 0;
    cursor cur = make_cursor();
    for (std::size_t i = 0; i < prefixes_.size() && !over; ++i) {
        pend[prefix_depth_] = load_prefix(i, p, slots.data(), &cur);
        uint64_t start = 0;
        for (std::size_t l = 0; l < prefix_depth_; ++l)
            start += p[plan_.order[l]] * stride_[plan_.order[l]];
        code[prefix_depth_] = start;
        if (prefix_depth_ == levels) {
            emit(start, pend[levels]);
            continue;
        }
        std::size_t l = prefix_depth_;
        idx[l] = 0;
        while (!over) {
            const uint32_t d = plan_.order[l];
            if (idx[l] == model_->card(d)) {
                if (l == prefix_depth_) break;
                ++idx[--l];
                continue;
            }
            const uint32_t v = idx[l];
            p[d] = v;
            slots[d] = model_->value_slot(d, v);
            if (++nodes > lim_.max_nodes) return std::nullopt;
            int pv = pend[l];
            const bool ok = passes(l, p, slots.data(), &pv);
            if (!ok) {
                ++idx[l];
                continue;
            }
            code[l + 1] = code[l] + v * stride_[d];
            pend[l + 1] = pv;
            if (l + 1 == levels) {
                emit(code[levels], pv);
                ++idx[l];
                continue;
            }
            idx[++l] = 0;
        }
    }
    if (over) return std::nullopt;
    out.shrink_to_fit();
    sort_codes(out, bit_width(total_ - 1));
    return out;
}

template std::optional<std::vector<uint32_t>> engine::enumerate<uint32_t>() const;
template std::optional<std::vector<uint64_t>> engine::enumerate<uint64_t>() const;

std::optional<point> engine::find(const std::vector<std::optional<uint32_t>>& fixed,
                                  uint64_t node_budget, bool* exhausted) const {
    const std::size_t n = model_->dims(), levels = plan_.order.size();
    *exhausted = true;
    point p(n, 0);
    std::vector<slot_value> slots(n);
    std::vector<uint32_t> idx(levels + 1, 0);
    std::vector<int> pend(levels + 1, 0);
    auto first_of = [&](uint32_t d) { return fixed[d] ? *fixed[d] : 0u; };
    auto end_of = [&](uint32_t d) { return fixed[d] ? *fixed[d] + 1 : model_->card(d); };
    // A leaf: the free parameters take their fixed value, else their first.
    auto leaf = [&](int pending) -> bool {
        for (uint32_t d : plan_.free) p[d] = first_of(d);
        return pending == 0 || model_->admits(p);
    };
    uint64_t nodes = 0;
    cursor cur = make_cursor();
    for (std::size_t i = 0; i < prefixes_.size(); ++i) {
        pend[prefix_depth_] = load_prefix(i, p, slots.data(), &cur);
        bool consistent = true;
        for (std::size_t l = 0; l < prefix_depth_; ++l) {
            const uint32_t d = plan_.order[l];
            consistent = consistent && (!fixed[d] || *fixed[d] == p[d]);
        }
        if (!consistent) continue;
        if (prefix_depth_ == levels) {
            if (leaf(pend[levels])) return p;
            continue;
        }
        std::size_t l = prefix_depth_;
        idx[l] = first_of(plan_.order[l]);
        for (;;) {
            const uint32_t d = plan_.order[l];
            if (idx[l] >= end_of(d)) {
                if (l == prefix_depth_) break;
                ++idx[--l];
                continue;
            }
            if (++nodes > node_budget) {
                *exhausted = false;
                return std::nullopt;
            }
            p[d] = idx[l];
            slots[d] = model_->value_slot(d, idx[l]);
            int pv = pend[l];
            const bool ok = passes(l, p, slots.data(), &pv);
            if (ok && l + 1 == levels && leaf(pv)) return p;
            if (!ok || l + 1 == levels) {
                ++idx[l];
                continue;
            }
            pend[++l] = pv;
            idx[l] = first_of(plan_.order[l]);
        }
    }
    return std::nullopt;
}

point engine::decode(uint64_t code) const {
    point p(model_->dims());
    for (std::size_t d = 0; d < p.size(); ++d)
        p[d] = static_cast<uint32_t>((code / stride_[d]) % model_->card(d));
    return p;
}

uint64_t engine::encode(const point& p) const {
    uint64_t code = 0;
    for (std::size_t d = 0; d < p.size(); ++d) code += p[d] * stride_[d];
    return code;
}

}  // namespace hone::space_detail
