package dev.distlock.kotlin.readme

import com.example.orders.Reservations
import com.example.orders.Stock
import dev.distlock.core.memory.MemoryLockRegistry
import java.nio.file.Files
import java.nio.file.Path
import kotlinx.coroutines.runBlocking
import org.assertj.core.api.Assertions.assertThat
import org.junit.jupiter.api.Test

/**
 * The README's Kotlin snippet is this module's ReadmeKotlinSnippet.kt (between its readme:kotlin markers),
 * so it compiles with the build; this test keeps the two the same and runs the snippet.
 */
class ReadmeKotlinTest {

    @Test
    fun readmeKotlinSnippetIsTheCompiledOne() {
        // The module directory is the working directory of the test.
        val readme = Files.readString(Path.of("..", "README.md"))
        val block = Regex("<!-- quickstart:kotlin -->\\s*\\n```kotlin\\n(.*?)\\n```", RegexOption.DOT_MATCHES_ALL)
            .findAll(readme).map { it.groupValues[1] }.toList()
        assertThat(block).`as`("README blocks marked <!-- quickstart:kotlin -->").hasSize(1)
        val source = Files.readString(Path.of("src/test/kotlin/dev/distlock/kotlin/readme/ReadmeKotlinSnippet.kt"))
        val region = source.substringAfter("// readme:kotlin start\n").substringBefore("\n// readme:kotlin end")
        assertThat(block.single()).isEqualTo(region)
    }

    @Test
    fun theSnippetReservesUnderTheKeysToken() {
        var seenToken = 0L
        val stock = object : Stock {
            override suspend fun reserve(sku: String, quantity: Int, fencingToken: Long): Int {
                seenToken = fencingToken
                return quantity
            }

            override suspend fun restock(sku: String, fencingToken: Long): Int = 0
        }
        MemoryLockRegistry().use { registry ->
            assertThat(runBlocking { Reservations(registry, stock).reserve("sku-1", 3) }).isEqualTo(3)
            assertThat(seenToken).isPositive()
            assertThat(registry.holds()).isEmpty()
        }
    }
}
