// drape::convert: the job pool (pool.h).
#include "pool.h"

#include <algorithm>
#include <thread>
#include <utility>
#include <vector>

namespace drape::convert {

void JobPool::run_items(size_t n, const std::function<void(size_t)>& item) {
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        m_item = &item;
        m_items = n;
        m_next_item = 0;
        m_items_done = 0;
        m_item_error = nullptr;
        m_running = true;
    }
    std::vector<std::thread> threads;
    const size_t helpers = std::min<size_t>(m_threads - 1, 1024);
    for (size_t t = 0; t < helpers; ++t) threads.emplace_back([this] { work(); });
    work();
    for (auto& t : threads) t.join();
    std::exception_ptr error;
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        m_running = false;
        m_item = nullptr;
        error = std::exchange(m_item_error, nullptr);
    }
    if (error) std::rethrow_exception(error);
}

namespace {
// Runs f(i); returns the exception it threw, if any (for the pool to carry to the caller: an
// exception leaving a worker thread would end the process).
std::exception_ptr run_caught(const std::function<void(size_t)>& f, size_t i) {
    try {
        f(i);
    } catch (...) {
        return std::current_exception();
    }
    return nullptr;
}
}  // namespace

void JobPool::run_one_task(std::unique_lock<std::mutex>& lock) {
    Group* g = m_groups.front();
    const size_t i = g->next++;
    if (g->next == g->n) m_groups.pop_front();
    lock.unlock();
    std::exception_ptr e = run_caught(*g->task, i);
    lock.lock();
    if (e && !g->error) g->error = e;
    if (++g->done == g->n) m_wake.notify_all();
}

void JobPool::work() {
    std::unique_lock<std::mutex> lock(m_mutex);
    for (;;) {
        // Tasks of running items first: they finish what is in flight (and its memory).
        if (!m_groups.empty()) {
            run_one_task(lock);
            continue;
        }
        if (m_next_item < m_items) {
            const size_t i = m_next_item++;
            lock.unlock();
            std::exception_ptr e = run_caught(*m_item, i);
            lock.lock();
            if (e && !m_item_error) m_item_error = e;
            if (++m_items_done == m_items) m_wake.notify_all();
            continue;
        }
        if (m_items_done == m_items) return;
        m_wake.wait(lock);
    }
}

void JobPool::parallel_for(size_t n, const std::function<void(size_t)>& task) {
    bool shared = false;
    if (n > 1 && m_threads > 1) {
        std::lock_guard<std::mutex> lock(m_mutex);
        shared = m_running;
    }
    if (!shared) {
        std::exception_ptr first;
        for (size_t i = 0; i < n; ++i)
            if (std::exception_ptr e = run_caught(task, i); e && !first) first = e;
        if (first) std::rethrow_exception(first);
        return;
    }
    Group g;
    g.task = &task;
    g.n = n;
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        m_groups.push_back(&g);
    }
    m_wake.notify_all();
    std::unique_lock<std::mutex> lock(m_mutex);
    while (g.next < g.n) {  // this group's own indices; idle threads take some meanwhile
        const size_t i = g.next++;
        if (g.next == g.n) m_groups.erase(std::find(m_groups.begin(), m_groups.end(), &g));
        lock.unlock();
        std::exception_ptr e = run_caught(task, i);
        lock.lock();
        if (e && !g.error) g.error = e;
        if (++g.done == g.n) m_wake.notify_all();
    }
    // While other threads finish this group's last tasks, this one runs tasks of other groups
    // (another item's textures, a branch of this item) instead of waiting idle; never a new item,
    // which would hold this group's caller for a whole item.
    while (g.done != g.n) {
        if (!m_groups.empty()) {
            run_one_task(lock);
            continue;
        }
        m_wake.wait(lock);
    }
    if (g.error) std::rethrow_exception(g.error);
}

}  // namespace drape::convert
