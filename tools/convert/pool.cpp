// drape::convert: the job pool (pool.h).
#include "pool.h"

#include <algorithm>
#include <thread>
#include <vector>

namespace drape::convert {

void JobPool::run_items(size_t n, const std::function<void(size_t)>& item) {
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        m_item = &item;
        m_items = n;
        m_next_item = 0;
        m_items_done = 0;
        m_running = true;
    }
    std::vector<std::thread> threads;
    const size_t helpers = std::min<size_t>(m_threads - 1, 1024);
    for (size_t t = 0; t < helpers; ++t) threads.emplace_back([this] { work(); });
    work();
    for (auto& t : threads) t.join();
    std::lock_guard<std::mutex> lock(m_mutex);
    m_running = false;
    m_item = nullptr;
}

void JobPool::work() {
    std::unique_lock<std::mutex> lock(m_mutex);
    for (;;) {
        // Tasks of running items first: they finish what is in flight (and its memory).
        if (!m_groups.empty()) {
            Group* g = m_groups.front();
            const size_t i = g->next++;
            if (g->next == g->n) m_groups.pop_front();
            lock.unlock();
            (*g->task)(i);
            lock.lock();
            if (++g->done == g->n) m_wake.notify_all();
            continue;
        }
        if (m_next_item < m_items) {
            const size_t i = m_next_item++;
            lock.unlock();
            (*m_item)(i);
            lock.lock();
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
        for (size_t i = 0; i < n; ++i) task(i);
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
        task(i);
        lock.lock();
        ++g.done;
    }
    m_wake.wait(lock, [&] { return g.done == g.n; });
}

}  // namespace drape::convert
